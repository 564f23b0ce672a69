#include <fmt/format.h>

#include <string>

#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"

namespace kerntime {

void check_cuda(cudaError_t status, std::string_view where) {
  if (status != cudaSuccess) {
    throw benchmark_failed(
        static_cast<int>(status),
        fmt::format("{} ({})", cudaGetErrorName(status), cudaGetErrorString(status)),
        std::string(where));
  }
}

void check_launch(std::string_view kernel) {
  check_cuda(cudaGetLastError(), fmt::format("the launch of {}", kernel));
}

void check_device(std::string_view where) {
  check_cuda(cudaDeviceSynchronize(), where);
  check_cuda(cudaGetLastError(), where);
}

cuda_stream::cuda_stream() {
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
}

cuda_stream::~cuda_stream() {
  static_cast<void>(cudaStreamDestroy(stream_));
}

cuda_event::cuda_event(unsigned flags) {
  check_cuda(cudaEventCreateWithFlags(&event_, flags), "creating an event");
}

cuda_event::~cuda_event() {
  static_cast<void>(cudaEventDestroy(event_));
}

} // namespace kerntime
