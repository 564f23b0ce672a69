#pragma once
// Reports: every output format is a writer fed the same runs and context. Writers know nothing of
// how the numbers were measured; they render measurement_result objects.

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kerntime/errors.hpp"
#include "kerntime/result.hpp"
#include "kerntime/roofline.hpp"

namespace kerntime {

enum class run_status { ok, failed, skipped };
[[nodiscard]] std::string_view to_string(run_status s);
[[nodiscard]] std::optional<run_status> parse_run_status(std::string_view text);

// "gemm_bf16/M=4096/N=4096": the benchmark name and each axis as name=value. The one way a
// state's identity is spelled; the plan builds it once and every record carries it.
[[nodiscard]] std::string
make_state_name(std::string_view benchmark,
                std::span<const std::pair<std::string, std::string>> axes);

// The GPU a state ran on. `ordinal` numbers the devices as the command saw them (--devices, the
// CUDA runtime's order under the CUDA_VISIBLE_DEVICES it was started with); `uuid` names the
// physical GPU ("GPU-8c3f…", as nvidia-smi prints it) and `host` the machine.
struct run_device {
  std::string host;
  int ordinal = 0;
  std::string name;
  std::string uuid;
};

// One state of one benchmark: what happened when it ran.
struct benchmark_run {
  std::string benchmark;                                 // e.g. "gemm_bf16"
  std::vector<std::pair<std::string, std::string>> axes; // axis name and value, in axis order
  std::string state_name;                                // make_state_name(benchmark, axes)
  run_status status = run_status::ok;
  std::optional<error_kind> error;               // failed runs: what kind of failure
  std::string message;                           // failed: the error; skipped: the reason
  std::optional<measurement_result> result;      // present when status == ok
  std::optional<double> flops;                   // per iteration, when the benchmark declared them
  std::optional<double> bytes;                   // read + written per iteration, when declared
  std::optional<flop_precision> flops_precision; // the unit the flops ran on, when declared
  // How close the declared work came to the GPU's peaks (the command line adds it to ok runs
  // with declared work on a GPU it has peaks for).
  std::optional<speed_of_light> sol;
  double wall_seconds = 0;          // host wall time of the state, set-up and failures included
  std::optional<run_device> device; // absent when the state never reached a device
  std::optional<std::size_t> plan_index; // the state's place in the full plan (all shards)
};

// One slice of a plan: `kerntime run --shard INDEX/COUNT` runs the states whose plan index
// modulo COUNT is INDEX.
struct shard_spec {
  int index = 0;
  int count = 1;
  friend bool operator==(const shard_spec&, const shard_spec&) = default;
};

// Facts about the whole run, shared by every benchmark in it.
struct run_context {
  std::string kerntime_version;
  std::string command_line;
  std::string host_name;
  std::string date; // ISO 8601, UTC
  std::optional<device_info> device;
  device_telemetry telemetry;
  std::optional<shard_spec> shard;        // the run covered this slice of the plan
  std::optional<std::size_t> plan_states; // states in the full plan (every shard)
};

// A writer renders all runs of one invocation into one stream (print_* calls do_*).
class report_writer {
public:
  virtual ~report_writer() = default;
  void print(std::ostream& out, const run_context& context, std::span<const benchmark_run> runs) {
    do_print(out, context, runs);
  }

private:
  virtual void do_print(std::ostream& out, const run_context& context,
                        std::span<const benchmark_run> runs) = 0;
};

[[nodiscard]] std::unique_ptr<report_writer> make_markdown_writer();
[[nodiscard]] std::unique_ptr<report_writer> make_json_writer();        // kerntime schema
[[nodiscard]] std::unique_ptr<report_writer> make_gbench_json_writer(); // Google Benchmark
// JUnit XML. xunit1 (the default, pytest's classic style): each testcase holds its properties.
// xunit2: valid against the Jenkins/xunit junit-10.xsd, which allows properties only on the
// testsuite, so each state's properties move there, named "STATE.property".
enum class junit_family { xunit1, xunit2 };
[[nodiscard]] std::string_view to_string(junit_family f);
[[nodiscard]] std::optional<junit_family> parse_junit_family(std::string_view text);
[[nodiscard]] std::unique_ptr<report_writer>
make_junit_writer(junit_family family = junit_family::xunit1);
[[nodiscard]] std::unique_ptr<report_writer> make_csv_writer();
[[nodiscard]] std::unique_ptr<report_writer> make_trace_writer(); // Chrome/Perfetto
// One self-contained HTML page (inline CSS and SVG charts, no script, nothing fetched when it is
// viewed). Given a comparison (kerntime/compare.hpp; it must outlive the writer), each compared
// state also shows its ratio to the baseline with the interval.
struct comparison;
[[nodiscard]] std::unique_ptr<report_writer> make_html_writer(const comparison* compared = nullptr);

// Every report format, once: its name (the Python module's), the command line's flag for a file
// of it, what the file holds, and its writer.
struct report_format {
  std::string_view name;        // "gbench_json"
  std::string_view flag;        // "--gbench-json"; markdown has none (it goes to stdout)
  std::string_view description; // for --help
  std::unique_ptr<report_writer> (*make_writer)();
};
[[nodiscard]] std::span<const report_format> report_formats();
// Throws kerntime::invalid_argument listing the known names when `name` is not one.
[[nodiscard]] const report_format& find_report_format(std::string_view name);

// Everything one invocation wrote to its kerntime JSON (--json), read back: what compare, merge
// and later reports consume, so a result measured once can be used again.
struct result_set {
  run_context context;
  std::vector<benchmark_run> runs;
};
// Read a kerntime JSON of json_schema_version (the version this kerntime writes) or an earlier
// one, plain or gzip-compressed (whatever its name). Throw kerntime::invalid_argument naming the
// file
// (`source`) and what is wrong with it.
// What a reader keeps: a command that only compares or reports the numbers leaves out the trace
// (the GPU records of the first iterations, a third of a result's memory).
struct read_options {
  bool trace = true;
};
[[nodiscard]] result_set read_result_set(const std::filesystem::path& path,
                                         const read_options& options = {});
[[nodiscard]] result_set parse_result_set(std::string_view json_text, std::string_view source);

// One run as one line of JSON (an element of the schema's "runs", no newline), and back: how a
// worker process streams each state's result to the supervisor of `kerntime run`.
[[nodiscard]] std::string run_to_json_line(const benchmark_run& run);
// Throws kerntime::invalid_argument naming `source` when the text is not such a run.
[[nodiscard]] benchmark_run parse_run_json(std::string_view json_text, std::string_view source);

// The kerntime JSON of one measurement (the "result" object of the schema), for the Python module.
[[nodiscard]] std::string to_json(const measurement_result& result);

// The version of the JSON schema written by make_json_writer (docs/schema/kerntime.schema.json).
// 2 (2026-12-04): the trace names each kernel once ({"kernels", "records"}); version 1 wrote a
// list of records. Files of every version from 1 on are read.
inline constexpr int json_schema_version = 2;
inline constexpr int oldest_json_schema_version = 1;

// Writes through a temporary file in the same folder, then renames: a reader never sees a
// partial file. A path ending in ".gz" is written gzip-compressed. Throws
// kerntime::invalid_argument naming the path when it cannot be written.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

} // namespace kerntime
