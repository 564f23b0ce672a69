#include "fault_kernel.hpp"

#include <cstdint>

#include "cuda_check.hpp"

namespace kerntime::testkit {
namespace {

__global__ void illegal_address_kernel(std::uintptr_t address) {
  *reinterpret_cast<volatile int*>(address) = 1;
}

} // namespace

void launch_illegal_address_write(cudaStream_t stream) {
  // Far outside any allocation and aligned, so the fault is an illegal address, not misalignment.
  constexpr std::uintptr_t unmapped = 0x7ff0'0000'0000;
  illegal_address_kernel<<<1, 1, 0, stream>>>(unmapped);
  KT_CUDA_CHECK(cudaGetLastError());
}

} // namespace kerntime::testkit
