#pragma once
// Which hardware-counter metrics a chip knows and how many replay passes they cost, asked of the
// CUPTI Profiler Host API by the chip's name ("GH100", "GB100") without a GPU. Metric names
// differ across chips, so `--metrics` is checked here before anything runs, and the pass count
// (each pass replays the kernel once) is known up front.

#include <cstddef>
#include <string>
#include <vector>

#include "counters/profiler_host_library.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {

struct metric_check {
  std::string name;
  bool known = false;
  std::vector<std::string> close_names; // for an unknown name: the chip's nearest full names
};

struct metric_plan {
  std::string chip;
  std::vector<metric_check> metrics; // in the order asked, duplicates kept
  std::size_t passes = 0;            // replay passes of the known metrics together; 0 for none
  [[nodiscard]] bool all_known() const;
};

// The metrics kerntime collects when the user names none: DRAM bytes read and written, DRAM
// throughput as % of peak, L2 hit rate, tensor-pipe utilisation. 2 passes on GH100 and GB100.
// The tensor-pipe name is the portable one: GH100's sm__pipe_tensor_op_hmma_* is unknown on GB100.
[[nodiscard]] const std::vector<std::string>& default_metrics();

// Checks each name against `chip` and counts the passes of the known ones.
// Throws invalid_argument for a chip the Host API does not know (naming the chips it knows) and
// counters_unavailable when the Host API cannot be used.
[[nodiscard]] metric_plan plan_metrics(const profiler_host_library& host, const std::string& chip,
                                       const std::vector<std::string>& names);

// Some asked-for metrics are not metrics of the chip. The message names each with its closest
// names; nothing was run.
class unknown_metrics : public invalid_argument {
public:
  explicit unknown_metrics(const metric_plan& plan);
  [[nodiscard]] const std::string& chip() const noexcept { return chip_; }
  [[nodiscard]] const std::vector<metric_check>& unknown() const noexcept { return unknown_; }

private:
  std::string chip_;
  std::vector<metric_check> unknown_;
};

// plan_metrics, refusing any unknown name with unknown_metrics.
[[nodiscard]] metric_plan check_metrics(const profiler_host_library& host, const std::string& chip,
                                        const std::vector<std::string>& names);

} // namespace kerntime::detail
