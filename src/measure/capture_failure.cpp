#include "measure/capture_failure.hpp"

namespace kerntime::detail {
namespace {

// Said once: the way out that always exists.
constexpr const char* or_stream_launches = "; or time it with stream launches (no --cuda-graph, "
                                           "cuda_graph=False)";

capture_failure failure(std::string why, const std::string& fix) {
  return {std::move(why), fix + or_stream_launches};
}

} // namespace

std::optional<capture_failure> explain_capture_error(cudaError_t error) {
  switch (error) {
  case cudaErrorStreamCaptureUnsupported:
    return failure("the work called a CUDA function that is not allowed while a stream is "
                   "captured: it synchronized with the host (cudaStreamSynchronize, "
                   "cudaDeviceSynchronize, a blocking cudaMemcpy, .item(), .cpu()), allocated "
                   "(cudaMalloc) or queried a stream or event",
                   "allocate and read results back outside the work (before exec/bench), and "
                   "keep the work asynchronous on the stream it is given");
  case cudaErrorStreamCaptureInvalidated:
    return failure("a call inside the work failed while the stream was captured, which ended "
                   "the capture (typically a synchronization or an allocation that the work "
                   "did not check)",
                   "run the work once without graph mode and check every CUDA call it makes");
  case cudaErrorStreamCaptureImplicit:
    return failure("the work used the legacy default stream (stream 0) while a blocking stream "
                   "was captured, which would make stream 0 wait for the capture",
                   "launch on the stream kerntime passes to the work, not on stream 0");
  case cudaErrorStreamCaptureUnjoined:
    return failure("the work forked onto another stream and did not join it back to the "
                   "measured stream before returning",
                   "end the work by recording an event on the other stream and making the "
                   "measured stream wait for it");
  case cudaErrorStreamCaptureIsolation:
    return failure("the work made the captured stream wait for work outside the capture (an "
                   "event recorded before the capture or on an uncaptured stream)",
                   "record the events the work waits for inside the work");
  case cudaErrorStreamCaptureMerge:
    return failure("the work joined two separate captures (it waited for an event recorded in "
                   "another stream's capture)",
                   "wait only for events recorded inside the work");
  case cudaErrorStreamCaptureUnmatched:
    return failure("the capture was ended on another stream than it began on (the work called "
                   "cudaStreamEndCapture itself)",
                   "leave capturing to kerntime: the work only enqueues");
  case cudaErrorCapturedEvent:
    return failure("the work queried or waited on the host for an event recorded during the "
                   "capture",
                   "do not query or synchronize events inside the work");
  case cudaErrorStreamCaptureWrongThread:
    return failure("the work enqueued into the capture from another thread",
                   "enqueue all work from the thread that calls the work");
  default:
    return std::nullopt;
  }
}

capture_failure stream_not_capturable() {
  return failure("the measured stream cannot be captured (it is the legacy default stream, 0)",
                 "pass a stream you created (cudaStreamCreate, torch.cuda.Stream), or none so "
                 "that kerntime creates one");
}

capture_failure empty_capture() {
  return failure("the work enqueued nothing on the measured stream while it was captured (it "
                 "launched on another stream that it does not join back)",
                 "launch on the stream kerntime passes to the work");
}

} // namespace kerntime::detail
