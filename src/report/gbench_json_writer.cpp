#include <algorithm>
#include <ostream>

#include "kerntime/report.hpp"
#include "report/detail/host_facts.hpp"
#include "report/detail/result_json.hpp"
#include "report/detail/stopping_text.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime {
namespace {

using json = nlohmann::ordered_json;

// The trials are Google Benchmark's repetitions: one "iteration" row per trial holding the
// trial's mean, then the mean/median/stddev/cv aggregates over those rows, which is the shape
// compare.py partitions by name and runs its U test on. Times are GPU times in microseconds.
constexpr const char* time_unit = "us";
constexpr double ns_per_unit = 1e3;

json context_to_json(const run_context& context, const detail::host_facts& host) {
  json caches = json::array();
  for (const auto& cache : host.caches) {
    caches.push_back({{"type", cache.type},
                      {"level", cache.level},
                      {"size", cache.size_bytes},
                      {"num_sharing", cache.num_sharing}});
  }
  const auto space = context.command_line.find(' ');
  json out = {{"date", context.date},
              {"host_name", context.host_name},
              {"executable", context.command_line.substr(0, space)},
              {"num_cpus", host.num_cpus},
              {"mhz_per_cpu", host.mhz_per_cpu},
              {"cpu_scaling_enabled", host.cpu_scaling_enabled},
              {"caches", std::move(caches)},
              {"load_avg", host.load_avg},
#ifdef NDEBUG
              {"library_build_type", "release"},
#else
              {"library_build_type", "debug"},
#endif
              // Google Benchmark's own schema version, which compare.py checks; not kerntime's.
              {"json_schema_version", 1},
              {"kerntime_version", context.kerntime_version},
              {"kerntime_command_line", context.command_line}};
  if (context.device) {
    out["device"] = detail::device_to_json(*context.device);
  }
  return out;
}

struct row_identity {
  std::string name;
  int family_index = 0;
  int per_family_instance_index = 0;
};

json row_start(const row_identity& id, const char* run_type, std::size_t repetitions,
               std::size_t repetition_index) {
  return {{"name", id.name},
          {"family_index", id.family_index},
          {"per_family_instance_index", id.per_family_instance_index},
          {"run_name", id.name},
          {"run_type", run_type},
          {"repetitions", repetitions},
          {"repetition_index", repetition_index},
          {"threads", 1}};
}

// Counters as Google Benchmark's user counters: per second at the given time.
void add_throughput(json& row, const benchmark_run& run, double ns) {
  if (ns <= 0) {
    return;
  }
  if (run.flops) {
    row["flops_per_second"] = *run.flops / (ns * 1e-9);
  }
  if (run.bytes) {
    row["bytes_per_second"] = *run.bytes / (ns * 1e-9);
  }
}

// The counter pass's values for the whole iteration as user counters (numbers only: the bound
// and an unavailable reason are text, which Google Benchmark's counters cannot hold). One
// profiled iteration, so the same on every row that carries them.
void add_counters(json& row, const counters_summary& c) {
  if (c.status != counters_status::measured) {
    return;
  }
  const auto add = [&row](const char* key, const std::optional<double>& value) {
    if (value) {
      row[key] = *value;
    }
  };
  add("dram_bytes", c.derived.dram_bytes);
  add("dram_bytes_per_second", c.derived.dram_bytes_per_second);
  add("dram_fraction_of_peak", c.derived.dram_fraction_of_peak);
  add("dram_percent_of_peak", c.derived.dram_percent_of_peak);
  add("compute_percent_of_peak", c.derived.compute_percent_of_peak);
}

void add_rows(json& benchmarks, const benchmark_run& run, const row_identity& id) {
  if (run.status != run_status::ok || !run.result) {
    // No time was measured; the numeric keys stay (as zeros) so readers that index them
    // unconditionally, compare.py among them, do not fail on the whole file.
    json row = row_start(id, "iteration", 1, 0);
    if (run.status == run_status::skipped) {
      row["skipped"] = true;
      row["skip_message"] = run.message;
    } else {
      row["error_occurred"] = true;
      row["error_message"] =
          !run.error ? run.message : detail::error_kind_text(run) + ": " + run.message;
    }
    row["iterations"] = 0;
    row["real_time"] = 0.0;
    row["cpu_time"] = 0.0;
    row["time_unit"] = time_unit;
    benchmarks.push_back(std::move(row));
    return;
  }
  const auto& r = *run.result;
  const auto& means = r.trials_summary.means;
  const std::string launch =
      r.protocol_used.launch == launch_mode::stream
          ? std::string()
          : "launch=" + std::string(to_string(r.protocol_used.launch)) + "; ";
  const std::string label =
      "backend=" + std::string(to_string(r.backend)) + "; " + launch + detail::describe_stopping(r);
  for (std::size_t i = 0; i < means.size(); ++i) {
    json row = row_start(id, "iteration", means.size(), i);
    row["iterations"] = i < r.trials.size() ? r.trials[i].iterations.size() : 0;
    // No host CPU time is measured; cpu_time repeats the GPU time so both columns compare.
    row["real_time"] = means[i] / ns_per_unit;
    row["cpu_time"] = means[i] / ns_per_unit;
    row["time_unit"] = time_unit;
    row["label"] = label;
    add_throughput(row, run, means[i]);
    add_counters(row, r.counters);
    benchmarks.push_back(std::move(row));
  }
  if (means.empty()) {
    return;
  }
  const std::size_t n = means.size();
  struct aggregate {
    const char* name;
    const char* unit;
    double value;
  };
  const aggregate aggregates[] = {
      {"mean", "time", r.trials_summary.mean_of_means / ns_per_unit},
      {"median", "time", r.trials_summary.median_of_means / ns_per_unit},
      {"stddev", "time", r.trials_summary.stdev_of_means / ns_per_unit},
      {"cv", "percentage", r.trials_summary.cv_of_means},
  };
  for (const auto& a : aggregates) {
    row_identity aggregate_id = id;
    aggregate_id.name = id.name + "_" + a.name;
    json row = row_start(aggregate_id, "aggregate", n, 0);
    row["run_name"] = id.name;
    row.erase("repetition_index"); // Google Benchmark writes none for aggregates
    row["aggregate_name"] = a.name;
    row["aggregate_unit"] = a.unit;
    row["iterations"] = n;
    row["real_time"] = a.value;
    row["cpu_time"] = a.value;
    row["time_unit"] = time_unit;
    row["label"] = label;
    if (std::string_view(a.name) == "mean" || std::string_view(a.name) == "median") {
      add_throughput(row, run, a.value * ns_per_unit);
      add_counters(row, r.counters);
    }
    benchmarks.push_back(std::move(row));
  }
}

class gbench_json_writer final : public report_writer {
public:
  explicit gbench_json_writer(detail::host_facts host) : host_(std::move(host)) {}

private:
  void do_print(std::ostream& out, const run_context& context,
                std::span<const benchmark_run> runs) override {
    json document;
    document["context"] = context_to_json(context, host_);
    json benchmarks = json::array();
    std::vector<std::string> families;
    std::vector<int> instances;
    for (const auto& run : runs) {
      auto family = std::find(families.begin(), families.end(), run.benchmark);
      if (family == families.end()) {
        families.push_back(run.benchmark);
        instances.push_back(0);
        family = std::prev(families.end());
      }
      const auto family_index = static_cast<int>(family - families.begin());
      add_rows(benchmarks, run, {run.state_name, family_index, instances[family_index]++});
    }
    document["benchmarks"] = std::move(benchmarks);
    out << detail::dump(document, 2) << '\n';
  }

  detail::host_facts host_;
};

} // namespace

namespace detail {
std::unique_ptr<report_writer> make_gbench_json_writer(host_facts facts) {
  return std::make_unique<gbench_json_writer>(std::move(facts));
}
} // namespace detail

std::unique_ptr<report_writer> make_gbench_json_writer() {
  return detail::make_gbench_json_writer(detail::read_host_facts());
}

} // namespace kerntime
