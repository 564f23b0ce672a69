#pragma once
// The base of every GPU test: skipped, with the reason, where the machine has no CUDA device, so
// the CI machine (toolkit, no GPU) builds and lists them and the H200 runs them.

#include <gtest/gtest.h>

#include "cuda_check.hpp"

namespace kerntime::gpu_tests {

class gpu_test : public ::testing::Test {
protected:
  void SetUp() override {
    if (testkit::cuda_device_count() == 0) {
      GTEST_SKIP() << "no CUDA device on this machine; GPU tests run on the H200 "
                      "(scripts/gpu_check.sh)";
    }
  }
};

} // namespace kerntime::gpu_tests
