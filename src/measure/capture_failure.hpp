#pragma once
// Why a work could not be captured into a CUDA graph, in words: each cudaStreamCapture error the
// runtime gives becomes a sentence naming what the work did and what to change (graph mode,
// docs/protocol.md). Pure, so the sentences are tested without a GPU.

#include <cuda_runtime_api.h>

#include <optional>
#include <string>

namespace kerntime::detail {

struct capture_failure {
  std::string why; // what the work did, e.g. "it synchronized with the host"
  std::string fix; // what to change
};

// The failure a capture error names; nullopt for an error that is not about capture (a fault of
// the work itself, reported as benchmark_failed).
[[nodiscard]] std::optional<capture_failure> explain_capture_error(cudaError_t error);

// The capture could not begin: the stream cannot be captured (the legacy default stream).
[[nodiscard]] capture_failure stream_not_capturable();

// The capture ended cleanly but holds no GPU work: the work launched elsewhere.
[[nodiscard]] capture_failure empty_capture();

} // namespace kerntime::detail
