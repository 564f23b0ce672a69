// Which GPUs a build's code runs on, and the message for one it does not (src/cuda/gpu_code.cpp):
// compute capabilities and CMake architecture lists in, the verdict and the exact text out.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

#include "cuda/gpu_code.hpp"

namespace kerntime::detail {
namespace {

// kerntime's default list (CMakeLists.txt), written out: the GPUs issue 46 names.
constexpr std::string_view default_list = "80-real;86-real;89-real;90-real;100-real;120";

gpu_code_fit fit_of(int major, int minor, std::string_view list) {
  return judge_gpu_code(major, minor, list).fit;
}

TEST(gpu_code_test, CmakesEntriesGiveMachineCodePtxOrBoth) {
  const auto code = parse_cuda_architectures("80-real;90a-real,100-virtual;120");
  ASSERT_TRUE(code.has_value());
  const std::vector<gpu_architecture> machine_code{{80, false}, {90, true}, {120, false}};
  const std::vector<gpu_architecture> ptx{{100, false}, {120, false}};
  EXPECT_EQ(code->machine_code, machine_code);
  EXPECT_EQ(code->ptx, ptx);
}

TEST(gpu_code_test, SpecialValuesAndUnknownEntriesAreNotAList) {
  for (const std::string_view list :
       {"native", "all", "all-major", "OFF", "", "86-fake", "sm_86"}) {
    EXPECT_FALSE(parse_cuda_architectures(list).has_value()) << list;
    EXPECT_EQ(fit_of(8, 6, list), gpu_code_fit::unknown) << list;
  }
}

TEST(gpu_code_test, TheDefaultListHasMachineCodeForEveryGpuIssue46Names) {
  for (const int arch : {80, 86, 89, 90, 100, 120}) {
    const auto verdict = judge_gpu_code(arch / 10, arch % 10, default_list);
    EXPECT_EQ(verdict.fit, gpu_code_fit::machine_code) << arch;
    EXPECT_EQ(verdict.architecture, arch);
  }
}

TEST(gpu_code_test, MachineCodeRunsOnNewerGpusOfItsMajorVersionOnly) {
  // Jetson Orin (8.7) and B300 (10.3) run the nearest older machine code of their major version.
  EXPECT_EQ(judge_gpu_code(8, 7, default_list).architecture, 86);
  EXPECT_EQ(fit_of(8, 7, default_list), gpu_code_fit::machine_code);
  EXPECT_EQ(judge_gpu_code(10, 3, default_list).architecture, 100);
  EXPECT_EQ(judge_gpu_code(12, 1, default_list).architecture, 120);
  // sm_90 machine code does not run on sm_100 or sm_86.
  EXPECT_EQ(fit_of(10, 0, "90-real"), gpu_code_fit::none);
  EXPECT_EQ(fit_of(8, 6, "90-real"), gpu_code_fit::none);
}

TEST(gpu_code_test, PtxForAnOlderArchitectureIsCompiledOnANewerGpuSoItIsCovered) {
  const auto verdict = judge_gpu_code(10, 0, "80-real;90");
  EXPECT_EQ(verdict.fit, gpu_code_fit::ptx_jit);
  EXPECT_EQ(verdict.architecture, 90);
  EXPECT_EQ(fit_of(12, 0, "90-virtual"), gpu_code_fit::ptx_jit);
  // A GPU after every one in the default list runs its compute_120 PTX.
  EXPECT_EQ(judge_gpu_code(13, 0, default_list).fit, gpu_code_fit::ptx_jit);
  // PTX is never compiled for an older GPU.
  EXPECT_EQ(fit_of(8, 9, "90"), gpu_code_fit::none);
  // Thor (11.0) is older than compute_120 and of another major version than sm_100.
  EXPECT_EQ(fit_of(11, 0, default_list), gpu_code_fit::none);
}

TEST(gpu_code_test, ArchitectureSpecificCodeRunsOnItsOwnGpuAlone) {
  EXPECT_EQ(fit_of(9, 0, "90a"), gpu_code_fit::machine_code);
  EXPECT_EQ(fit_of(10, 0, "90a"), gpu_code_fit::none);
}

TEST(gpu_code_test, AGpuWithoutCodeIsNamedWithTheListToRebuildWith) {
  EXPECT_EQ(no_gpu_code_message({8, 6, "NVIDIA A10"}, {"90", default_list},
                                "cudaErrorNoKernelImageForDevice"),
            "this kerntime build has no code for sm_86 (NVIDIA A10): built for sm_90 compute_90; "
            "rebuild with -DCMAKE_CUDA_ARCHITECTURES=\"86-real;90\" (or leave it unset for the "
            "default list, which covers it)");
  EXPECT_EQ(no_gpu_code_message({10, 0, "NVIDIA B200"}, {"80-real,90-real", default_list},
                                "cudaErrorNoKernelImageForDevice"),
            "this kerntime build has no code for sm_100 (NVIDIA B200): built for sm_80 sm_90; "
            "rebuild with -DCMAKE_CUDA_ARCHITECTURES=\"80-real;90-real;100-real\" (or leave it "
            "unset for the default list, which covers it)");
}

TEST(gpu_code_test, TheDefaultListIsNotOfferedWhereItIsWhatWasBuiltOrDoesNotCoverTheGpu) {
  EXPECT_EQ(no_gpu_code_message({11, 0, "NVIDIA Thor"}, {default_list, default_list},
                                "cudaErrorNoKernelImageForDevice"),
            "this kerntime build has no code for sm_110 (NVIDIA Thor): built for sm_80 sm_86 sm_89 "
            "sm_90 sm_100 sm_120 compute_120; rebuild with "
            "-DCMAKE_CUDA_ARCHITECTURES=\"80-real;86-real;89-real;90-real;100-real;110-real;120\"");
  EXPECT_EQ(no_gpu_code_message({11, 0, "NVIDIA Thor"}, {"90-real", default_list},
                                "cudaErrorNoKernelImageForDevice"),
            "this kerntime build has no code for sm_110 (NVIDIA Thor): built for sm_90; rebuild "
            "with -DCMAKE_CUDA_ARCHITECTURES=\"90-real;110-real\"");
}

TEST(gpu_code_test, PtxTheDriverCannotCompileSaysTheDriverIsOlderThanTheToolkit) {
  EXPECT_EQ(no_gpu_code_message({12, 0, "NVIDIA GeForce RTX 5090"}, {"90", default_list},
                                "cudaErrorUnsupportedPtxVersion"),
            "this kerntime build has no machine code for sm_120 (NVIDIA GeForce RTX 5090), and its "
            "PTX for compute_90 could not be compiled for it by the driver "
            "(cudaErrorUnsupportedPtxVersion: the driver is older than the CUDA toolkit that built "
            "kerntime); update the driver, or rebuild with "
            "-DCMAKE_CUDA_ARCHITECTURES=\"90;120-real\" (or leave it unset for the default list, "
            "which covers it)");
}

TEST(gpu_code_test, AListThatCannotBeReadIsQuotedAsItWas) {
  EXPECT_EQ(no_gpu_code_message({8, 6, "NVIDIA A10"}, {"native", default_list},
                                "cudaErrorNoKernelImageForDevice"),
            "this kerntime build (CMAKE_CUDA_ARCHITECTURES=native) has no code for sm_86 (NVIDIA "
            "A10) (cudaErrorNoKernelImageForDevice); rebuild with "
            "-DCMAKE_CUDA_ARCHITECTURES=\"86-real\" (or leave it unset for the default list, which "
            "covers it)");
}

TEST(gpu_code_test, InfoSaysWhatTheBuildRunsOnEachGpu) {
  const gpu_code_lists lists{default_list, default_list};
  EXPECT_EQ(describe_gpu_code({8, 7, "NVIDIA Jetson AGX Orin"}, lists), "machine code for sm_86");
  EXPECT_EQ(describe_gpu_code({13, 0, "a GPU after Blackwell"}, lists),
            "PTX for compute_120, compiled by the driver when first loaded");
  EXPECT_EQ(describe_gpu_code({11, 0, "NVIDIA Thor"}, {"native", default_list}),
            "built for CMAKE_CUDA_ARCHITECTURES=native: known when first loaded");
  EXPECT_EQ(describe_gpu_code({11, 0, "NVIDIA Thor"}, lists),
            "none: " + no_gpu_code_message({11, 0, "NVIDIA Thor"}, lists, ""));
}

TEST(gpu_code_test, OnlyErrorsOfLoadingCodeAreGpuCodeErrors) {
  EXPECT_TRUE(is_gpu_code_error(cudaErrorNoKernelImageForDevice));
  EXPECT_TRUE(is_gpu_code_error(cudaErrorUnsupportedPtxVersion));
  EXPECT_FALSE(is_gpu_code_error(cudaSuccess));
  EXPECT_FALSE(is_gpu_code_error(cudaErrorIllegalAddress));
  EXPECT_FALSE(is_gpu_code_error(cudaErrorMemoryAllocation));
}

TEST(gpu_code_test, TheLibraryKnowsTheListsItWasBuiltWith) {
  const gpu_code_lists lists = this_build_gpu_code();
  EXPECT_FALSE(lists.built.empty());
  // The default list as the build passes it (entries separated by ",") is the one above.
  auto from_build = parse_cuda_architectures(lists.default_list);
  const auto written_here = parse_cuda_architectures(default_list);
  ASSERT_TRUE(from_build.has_value() && written_here.has_value());
  EXPECT_EQ(from_build->machine_code, written_here->machine_code);
  EXPECT_EQ(from_build->ptx, written_here->ptx);
}

} // namespace
} // namespace kerntime::detail
