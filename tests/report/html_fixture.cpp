#include "html_fixture.hpp"

#include <algorithm>
#include <stdexcept>

#include "kerntime/roofline.hpp"
#include "sample_runs.hpp"

namespace kerntime::test {

std::string script_kernel_name() {
  return "<script>alert(1)</script>";
}

std::string hostile_benchmark_name() {
  return "attack<\"double\" & 'single'>\x01";
}

std::vector<benchmark_run> html_fixture_runs() {
  auto runs = sample_runs();
  const auto ok = std::find_if(runs.begin(), runs.end(), [](const benchmark_run& r) {
    return r.status == run_status::ok && r.result && !r.result->kernels.empty();
  });
  if (ok == runs.end()) {
    throw std::logic_error("the sample runs hold no ok state with kernels");
  }
  benchmark_run hostile = *ok;
  hostile.benchmark = hostile_benchmark_name();
  hostile.axes = {{"name", "</title><img src=x onerror=alert(2)>"}};
  hostile.state_name = make_state_name(hostile.benchmark, hostile.axes);
  hostile.result->kernels.front().name = script_kernel_name();
  for (auto& record : hostile.result->trace) {
    record.name = script_kernel_name();
  }
  hostile.result->warnings.push_back("<b>not bold</b> & \"quoted\"");
  // Speed of light and energy, so the page's SOL and energy columns are drawn too.
  speed_of_light sol;
  sol.precision = flop_precision::bf16_tensor;
  sol.peak_flops_per_s = 989.4e12;
  sol.peak_bytes_per_s = 4.8e12;
  sol.compute_pct = 73.2;
  sol.memory_pct = 12.5;
  sol.bound = roofline_bound::compute;
  sol.roofline_ns = 128000;
  sol.peak_source = "peaks.json <\"override\">";
  hostile.sol = sol;
  hostile.result->energy.available = true;
  hostile.result->energy.joules_per_iteration = 0.0925;
  hostile.result->energy.average_watts = 512.3;
  runs.push_back(std::move(hostile));
  return runs;
}

} // namespace kerntime::test
