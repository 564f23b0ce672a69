// cuBLAS loaded on first use (kerntime/cublas.hpp): the toolkit's library binds every call, a bad
// path is refused naming it and the fix, and a failed call becomes a failed state. No GPU needed:
// loading cuBLAS and reading its status names do not touch a device.

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "cuda/cublas_loader.hpp"
#include "kerntime/cublas.hpp"
#include "kerntime/errors.hpp"

namespace kerntime {
namespace {

TEST(cublas_library_test, TheToolkitsCublasBindsEveryCall) {
  const auto loaded = detail::load_cublas(nullptr);
  ASSERT_TRUE(std::holds_alternative<cublas_library>(loaded)) << std::get<std::string>(loaded);
  const auto& library = std::get<cublas_library>(loaded);
  EXPECT_NE(library.create, nullptr);
  EXPECT_NE(library.destroy, nullptr);
  EXPECT_NE(library.set_stream, nullptr);
  EXPECT_NE(library.set_workspace, nullptr);
  EXPECT_NE(library.gemm_ex, nullptr);
  EXPECT_EQ(std::string(library.status_name(CUBLAS_STATUS_NOT_INITIALIZED)),
            "CUBLAS_STATUS_NOT_INITIALIZED");
}

TEST(cublas_library_test, AMissingLibraryIsNamedWithTheFix) {
  const auto loaded = detail::load_cublas("/nonexistent/libcublas.so.13");
  ASSERT_TRUE(std::holds_alternative<std::string>(loaded));
  const auto& why = std::get<std::string>(loaded);
  EXPECT_NE(why.find("cannot load cuBLAS (/nonexistent/libcublas.so.13"), std::string::npos) << why;
  EXPECT_NE(why.find("KERNTIME_CUBLAS_PATH"), std::string::npos) << why;
}

TEST(cublas_library_test, ALibraryWithoutCublasIsRefusedNamingWhatItLacks) {
  const auto loaded = detail::load_cublas("libm.so.6");
  ASSERT_TRUE(std::holds_alternative<std::string>(loaded));
  const auto& why = std::get<std::string>(loaded);
  EXPECT_NE(why.find("lacks cublasCreate_v2"), std::string::npos) << why;
  EXPECT_NE(why.find("cublasGemmEx"), std::string::npos) << why;
}

TEST(cublas_library_test, AFailedCallFailsTheStateNamingTheCallAndTheStatus) {
  try {
    check_cublas(CUBLAS_STATUS_NOT_INITIALIZED, "cublasCreate");
    FAIL() << "no exception";
  } catch (const benchmark_failed& e) {
    EXPECT_EQ(e.where(), "cublasCreate");
    EXPECT_EQ(e.cuda_error_name(), "CUBLAS_STATUS_NOT_INITIALIZED");
  }
  EXPECT_NO_THROW(check_cublas(CUBLAS_STATUS_SUCCESS, "cublasCreate"));
}

} // namespace
} // namespace kerntime
