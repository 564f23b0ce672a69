#pragma once
// measure() for a caller that knows who holds CUPTI's subscription when kerntime's own is
// refused: the Python layer, which sees torch.profiler's state and may grant sharing CUPTI with
// it while it is idle. The public measure() passes "unknown" and never shares.

#include <cuda_runtime_api.h>

#include "cupti/cupti_sharing.hpp"
#include "kerntime/measure.hpp"

namespace kerntime::detail {

[[nodiscard]] measurement_result measure(const work_function& work, const protocol& p,
                                         cudaStream_t stream, const cupti_sharing& sharing);

} // namespace kerntime::detail
