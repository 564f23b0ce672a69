#pragma once
// Which GPUs this build of kerntime has code for, and what to tell someone whose GPU it lacks.
// The build's list is CMake's CMAKE_CUDA_ARCHITECTURES as the library was compiled with it;
// judging a device against a list is pure, so tests feed it a compute capability and a list.
// Default list and how to change it: docs/building.md.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kerntime::detail {

// One entry of a CMake architecture list: 86 is sm_86 (machine code) or compute_86 (PTX);
// `specific` is the "a" suffix (sm_90a), code for that compute capability alone.
struct gpu_architecture {
  int number = 0;
  bool specific = false;
  friend bool operator==(const gpu_architecture&, const gpu_architecture&) = default;
};

// A build's GPU code: machine code per real architecture, PTX per virtual one.
struct gpu_code {
  std::vector<gpu_architecture> machine_code; // "86-real", and "86"
  std::vector<gpu_architecture> ptx;          // "86-virtual", and "86"
};

// CMake's syntax: entries "86", "86-real", "86-virtual" (each optionally "86a..."), separated
// by ";" or ",". nullopt for what names no architectures ("native", "all", "all-major", "OFF",
// an unknown entry): then only loading the code tells whether a GPU is covered.
[[nodiscard]] std::optional<gpu_code> parse_cuda_architectures(std::string_view list);

// How a GPU runs a build's code. Machine code for X.y runs on X.z, z >= y (the same major
// version); PTX for compute_N is compiled by the driver for any GPU of N or newer.
enum class gpu_code_fit {
  machine_code, // native code for the GPU, or for an older GPU of its major version
  ptx_jit,      // no machine code, but PTX the driver compiles when the code is first loaded
  none,         // nothing this GPU can run
  unknown,      // the list could not be read (a special value such as "native")
};

struct gpu_code_verdict {
  gpu_code_fit fit = gpu_code_fit::unknown;
  int architecture = 0; // the machine code's or the PTX's that runs; 0 for none and unknown
};

[[nodiscard]] gpu_code_verdict judge_gpu_code(int major, int minor, std::string_view built_list);

// The GPU a build's code must run on, as the message names it.
struct gpu_identity {
  int major = 0;
  int minor = 0;
  std::string name; // "NVIDIA A10"
};

// The lists a message compares: the build's, and kerntime's default (CMakeLists.txt).
struct gpu_code_lists {
  std::string_view built;
  std::string_view default_list;
};

// The message of the device_unavailable raised when kerntime's own kernels cannot be loaded on
// `gpu` (`load_error`: CUDA's name for the failure, e.g. cudaErrorNoKernelImageForDevice): what
// the build lacks and the CMAKE_CUDA_ARCHITECTURES to rebuild with (and whether the default list
// would do); for PTX the driver could not compile, that the driver is older than the toolkit.
[[nodiscard]] std::string no_gpu_code_message(const gpu_identity& gpu, const gpu_code_lists& lists,
                                              std::string_view load_error);

// What this build runs on `gpu`, for `kerntime info`: "machine code for sm_90", "PTX for
// compute_120, compiled by the driver when first loaded", or the no_gpu_code_message.
[[nodiscard]] std::string describe_gpu_code(const gpu_identity& gpu, const gpu_code_lists& lists);

// Whether a CUDA error says that a kernel's code cannot be loaded on the device (no image for it,
// PTX too new for the driver or not compilable), rather than that something failed while running.
[[nodiscard]] bool is_gpu_code_error(int cuda_error) noexcept;

// This library's list as CMake had it, and kerntime's default list.
[[nodiscard]] gpu_code_lists this_build_gpu_code() noexcept;

} // namespace kerntime::detail
