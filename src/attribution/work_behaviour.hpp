#pragma once
// What the work did beside its GPU time, judged from the same records attribution reads: whether
// it made the host wait for the GPU (a synchronize, a copy to the host), whether the GPU waited
// for the host before an iteration, and whether rotating the inputs added kernels. Pure functions
// over decoded records; docs/queue.md gives the rules.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attribution/attribution.hpp"
#include "cupti/activity_log.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

// Back-to-back work on one stream starts about 1 µs after the work before it ends (more while
// CUPTI instruments launches); an iteration that starts later than this after the GPU work before
// it waited for the host.
inline constexpr double launch_latency_ns = 5'000;
// Host gaps are worth a warning when more than this share of the measured iterations has one.
inline constexpr double material_host_gap_share = 0.01;

// Per iteration id (kerntime's iteration tags only): the calls it made that make the host wait
// for the GPU, in the order made, each name once. A synchronous copy that stays on the device
// (device to device, peer to peer) is not one.
[[nodiscard]] std::map<std::uint64_t, std::vector<std::string_view>>
host_waits_by_iteration(const activity_log& log);

// Per measured iteration (trial by trial, in launch order): how long the GPU had nothing to run
// before the iteration's first record, i.e. its first start minus the latest end of every record
// that started before it (its flush, the iteration before, the blocking kernel); 0 when none did,
// and 0 when the API call that launched that record had returned before the GPU went idle (the
// host was not late: the wait was the device's own launch latency, as for a CUDA graph).
[[nodiscard]] std::vector<double> idle_before_iterations_ns(const activity_log& log,
                                                            const iteration_layout& layout);

// The kernels (by name, each once, in the order the rotated call ran them) that the call on
// rotated inputs ran more often than the call on the same inputs.
[[nodiscard]] std::vector<std::string> kernels_added_by_rotation(const activity_log& log,
                                                                 std::uint64_t same_inputs_id,
                                                                 std::uint64_t rotated_inputs_id);

// The GPU records of iteration `id`, its flush included: the launches it queues.
[[nodiscard]] int launches_of_iteration(const activity_log& log, std::uint64_t id);

// Synchronization and host gaps over the measured iterations of `layout`.
[[nodiscard]] work_behaviour judge_work(const activity_log& log, const iteration_layout& layout);

// The warnings a judgement calls for, each said once: synchronization always; host gaps when
// material (and not already explained by synchronization); rotation when it added kernels.
[[nodiscard]] std::vector<std::string> warnings_about(const work_behaviour& work,
                                                      int measured_iterations);

} // namespace kerntime::detail
