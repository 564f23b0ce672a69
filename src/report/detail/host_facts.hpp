#pragma once
// Facts about the host: its name and the time (a run's context), and the CPU facts Google
// Benchmark's JSON context carries, read at the edge (from /proc and /sys) so the gbench writer
// itself stays a pure function that tests feed fixed facts.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

struct cpu_cache {
  std::string type; // "Data", "Instruction", "Unified"
  int level = 0;
  std::int64_t size_bytes = 0;
  int num_sharing = 0; // logical CPUs sharing this cache
};

struct host_facts {
  int num_cpus = 0;
  double mhz_per_cpu = 0;
  bool cpu_scaling_enabled = false;
  std::vector<cpu_cache> caches;
  std::vector<double> load_avg;
};

// This machine's name (empty where it cannot be read), and the time now as ISO 8601 in UTC
// ("2026-12-05T02:10:00Z"): what a run's context and the history record.
[[nodiscard]] std::string host_name();
[[nodiscard]] std::string utc_now_iso8601();

// What this machine reports; fields it cannot read stay at their defaults.
[[nodiscard]] host_facts read_host_facts();

[[nodiscard]] std::unique_ptr<report_writer> make_gbench_json_writer(host_facts facts);

} // namespace kerntime::detail
