#include "kerntime/protocol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kerntime/errors.hpp"

namespace kerntime {
namespace {

std::optional<std::string> at_least(std::string_view name, const setting_names& names,
                                    long long value, long long minimum) {
  if (value >= minimum) {
    return std::nullopt;
  }
  return fmt::format("{} must be at least {} (got {}); pass {}{}{} or more", name, minimum, value,
                     name, names.assign, minimum);
}

std::optional<std::string> at_most(std::string_view name, long long value, long long maximum) {
  if (value <= maximum) {
    return std::nullopt;
  }
  return fmt::format("{} must be at most {} (got {})", name, maximum, value);
}

// Upper bounds on the counts: far beyond any useful protocol, well before a run would exhaust
// memory or never end (documented in docs/protocol.md).
constexpr long long max_warmup = 1'000'000;
constexpr long long max_trial_count = 100'000;
constexpr long long max_repeats = 100'000;
constexpr long long max_input_sets = 1'024;

// The checks a protocol's values must pass, however they were given.
std::optional<std::string> first_problem(long long warmup, long long trials, long long repeats,
                                         long long input_sets, double throttle_threshold,
                                         bool telemetry, bool discard_throttled,
                                         const setting_names& names) {
  struct count {
    std::string_view name;
    long long value;
    long long minimum;
    long long maximum;
  };
  const count counts[] = {{names.warmup, warmup, 0, max_warmup},
                          {names.trials, trials, 1, max_trial_count},
                          {names.repeats, repeats, 1, max_repeats},
                          {names.input_sets, input_sets, 1, max_input_sets}};
  for (const auto& c : counts) {
    if (auto problem = at_least(c.name, names, c.value, c.minimum)) {
      return problem;
    }
    if (auto problem = at_most(c.name, c.value, c.maximum)) {
      return problem;
    }
  }
  if (!(throttle_threshold > 0.0 && throttle_threshold <= 1.0)) {
    // A percentage typed where the fraction goes (90 for 90 %) is named as such, not guessed at.
    const double as_fraction = throttle_threshold >= 10.0 && throttle_threshold <= 100.0
                                   ? throttle_threshold / 100.0
                                   : 0.9;
    return fmt::format("{0} must be a fraction of the maximum SM clock in (0, 1] (got {1}); e.g. "
                       "{0}{2}{3:.4g} for {4:.4g} % of the maximum SM clock",
                       names.throttle_threshold, throttle_threshold, names.assign, as_fraction,
                       as_fraction * 100.0);
  }
  if (discard_throttled && !telemetry) {
    return fmt::format("{} and {} contradict each other: throttling is detected by telemetry; "
                       "drop one",
                       names.discard_throttled, names.no_telemetry);
  }
  return std::nullopt;
}

// The stopping rule's settings: a target in (0, 100) %, a trial bound no lower than the trials
// that always run, a positive time bound.
std::optional<std::string> stopping_problem(std::optional<double> stop_at_ci, long long trials,
                                            long long max_trials, double max_time_s,
                                            const setting_names& names) {
  if (!stop_at_ci) {
    return std::nullopt;
  }
  if (!std::isfinite(*stop_at_ci) || *stop_at_ci <= 0 || *stop_at_ci >= 100) {
    return fmt::format("{} is a percentage in (0, 100) (got {}); e.g. {}{}0.5 for an interval "
                       "within ±0.5 % of the median",
                       names.stop_at_ci, *stop_at_ci, names.stop_at_ci, names.assign);
  }
  if (max_trials < trials) {
    return fmt::format("{} ({}) is below {} ({}), the trials that always run; raise {} or lower "
                       "{}",
                       names.max_trials, max_trials, names.trials, trials, names.max_trials,
                       names.trials);
  }
  if (auto problem = at_most(names.max_trials, max_trials, max_trial_count)) {
    return problem;
  }
  if (!std::isfinite(max_time_s) || max_time_s <= 0) {
    return fmt::format("{} must be a positive number of seconds (got {}); e.g. {}{}30",
                       names.max_time, max_time_s, names.max_time, names.assign);
  }
  return std::nullopt;
}

// Counters need CUPTI (the range profiler), and each metric name is one word: CUPTI's names
// ("dram__bytes_read.sum") have no spaces or commas. Whether the chip knows a name is checked
// against the device before the run (counters/metric_plan.hpp).
std::optional<std::string> counters_problem(bool counters, const std::vector<std::string>& metrics,
                                            backend_request backend, const setting_names& names) {
  if (!metrics.empty() && !counters) {
    return fmt::format("{} names the hardware counters to collect and needs {}; turn {} on or "
                       "drop {}",
                       names.metrics, names.counters, names.counters, names.metrics);
  }
  if (counters && backend == backend_request::events) {
    return fmt::format("{} needs CUPTI (the range profiler), and {}{}events asks for CUDA events; "
                       "drop one",
                       names.counters, names.backend, names.assign);
  }
  for (const auto& name : metrics) {
    if (name.empty() || name.find_first_of(" \t,") != std::string::npos) {
      return fmt::format("{} takes CUPTI metric names, one per entry, such as "
                         "dram__bytes_read.sum (got \"{}\")",
                         names.metrics, name);
    }
  }
  return std::nullopt;
}

} // namespace

protocol parse_protocol(const protocol_request& request, const setting_names& names) {
  if (auto problem = first_problem(request.warmup, request.trials, request.repeats,
                                   request.input_sets, request.throttle_threshold,
                                   request.telemetry, request.discard_throttled, names)) {
    throw invalid_argument(*problem);
  }
  protocol p;
  for (const auto& [given, name] : {std::pair{request.max_trials.has_value(), names.max_trials},
                                    std::pair{request.max_time_s.has_value(), names.max_time}}) {
    if (given && !request.stop_at_ci) {
      throw invalid_argument(fmt::format("{} bounds the stopping rule and needs {}; pass {}{}0.5 "
                                         "(for example) or drop {}",
                                         name, names.stop_at_ci, names.stop_at_ci, names.assign,
                                         name));
    }
  }
  // Without a bound given, the default bound never undercuts the trials asked for.
  const long long max_trials =
      request.max_trials.value_or(std::max<long long>(p.max_trials, request.trials));
  if (auto problem = stopping_problem(request.stop_at_ci, request.trials, max_trials,
                                      request.max_time_s.value_or(p.max_time_s), names)) {
    throw invalid_argument(*problem);
  }
  p.warmup = static_cast<int>(request.warmup);
  p.warmup_auto = request.warmup_auto;
  p.trials = static_cast<int>(request.trials);
  p.stop_at_ci = request.stop_at_ci;
  p.max_trials = static_cast<int>(max_trials);
  p.max_time_s = request.max_time_s.value_or(p.max_time_s);
  p.repeats = static_cast<int>(request.repeats);
  p.input_sets = static_cast<int>(request.input_sets);
  p.flush_l2 = request.flush_l2;
  if (request.flush_bytes) {
    if (!request.flush_l2) {
      throw invalid_argument(fmt::format("{} and {} contradict each other; drop one",
                                         names.flush_bytes, names.no_flush));
    }
    if (auto problem = at_least(names.flush_bytes, names, *request.flush_bytes, 1)) {
      throw invalid_argument(*problem);
    }
    p.flush_bytes = static_cast<std::size_t>(*request.flush_bytes);
  }
  const auto backend = parse_backend_request(request.backend);
  if (!backend) {
    throw invalid_argument(
        fmt::format("{0}{1}{2} is not a timer; pass {0}{1}auto, {0}{1}cupti or {0}{1}events",
                    names.backend, names.assign, request.backend));
  }
  p.backend = *backend;
  const auto metric = parse_headline_metric(request.metric);
  if (!metric) {
    throw invalid_argument(fmt::format("{0}{1}{2} is not a metric; pass {0}{1}span or {0}{1}busy",
                                       names.metric, names.assign, request.metric));
  }
  p.metric = *metric;
  p.telemetry = request.telemetry;
  p.throttle_threshold = request.throttle_threshold;
  p.discard_throttled = request.discard_throttled;
  p.launch = request.cuda_graph ? launch_mode::graph : launch_mode::stream;
  p.counters = request.counters || !request.metrics.empty();
  p.metrics = request.metrics;
  if (auto problem = counters_problem(p.counters, p.metrics, p.backend, names)) {
    throw invalid_argument(*problem);
  }
  return p;
}

std::optional<std::string> validate(const protocol& p) {
  if (auto problem =
          first_problem(p.warmup, p.trials, p.repeats, p.input_sets, p.throttle_threshold,
                        p.telemetry, p.discard_throttled, setting_names{})) {
    return problem;
  }
  if (auto problem = counters_problem(p.counters, p.metrics, p.backend, setting_names{})) {
    return problem;
  }
  if (p.counters_only && !p.counters) {
    return "counters_only measures counters alone and needs counters=true";
  }
  return stopping_problem(p.stop_at_ci, p.trials, p.max_trials, p.max_time_s, setting_names{});
}

} // namespace kerntime
