#pragma once
// What the supervisor and a worker say to each other, one line each:
//   supervisor → worker   "run INDEX NAME"      measure the state at plan index INDEX
//                         "reference"           measure kerntime's own reference once
//                                               (measure/reference_work.hpp; kerntime ab)
//                         (end of input)        no more states: exit
//   worker → supervisor   "ready DEVICE-JSON"   the device is usable; send states. The device's
//                                               object may carry "reference": the identity of
//                                               the reference this worker measures
//                         "unusable MESSAGE"    it is not (no device, no driver); then exits
//                         "result RUN-JSON"     one state's benchmark_run, as it completes
// A worker whose state left the CUDA context unusable sends that state's result and exits, so
// every state starts on a healthy context.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kerntime/report.hpp"

namespace kerntime::detail {

[[nodiscard]] std::string run_command(std::size_t plan_index, std::string_view state_name);
// The plan index and name of a "run" line; nullopt for anything else.
struct run_request {
  std::size_t plan_index = 0;
  std::string state_name;
};
[[nodiscard]] std::optional<run_request> parse_run_command(std::string_view line);

// The "reference" line, and whether a line is one.
[[nodiscard]] std::string reference_command();
[[nodiscard]] bool is_reference_command(std::string_view line);

// `reference`: the identity of the reference the worker measures; empty: it measures none (no
// device to measure on). Old supervisors read the device and pass over the key.
[[nodiscard]] std::string ready_message(const std::optional<run_device>& device,
                                        std::string_view reference = {});
[[nodiscard]] std::string unusable_message(std::string_view why);
[[nodiscard]] std::string result_message(const benchmark_run& run);

// A worker's line, read: which kind, and what it carried.
struct worker_message {
  enum class kind { ready, unusable, result } what = kind::ready;
  std::optional<run_device> device; // ready
  std::string reference;            // ready: the reference's identity; empty: none (an older
                                    // worker, or no device)
  std::string text;                 // unusable: the reason
  benchmark_run run;                // result
};
// Throws kerntime::invalid_argument for a line that is none of them (a worker that prints on
// its message channel what it should not is a bug worth stopping for).
[[nodiscard]] worker_message parse_worker_message(std::string_view line);

} // namespace kerntime::detail
