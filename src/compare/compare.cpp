#include "kerntime/compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "compare/ratio_interval.hpp"
#include "compare/side.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"

namespace kerntime {
namespace {

using detail::clock_tolerance;
using detail::side;
using detail::verdict_of;

// Iterations whose GPU records leave this much of the span idle (launch and dependency gaps)
// shift between processes far more than between trials: on the H200, A/A runs of the suite moved
// such states by up to 0.25 × the idle fraction (docs/compare.md), and the others by < 0.6 %.
constexpr double gapped_fraction = 0.15;
constexpr double gap_floor_per_idle_fraction = 0.25;
// States measured without the flush (a hot L2) moved by up to 6.55 % between processes.
constexpr double hot_l2_floor = 0.07;
// A change of at most this many timer steps is named as such in the notes.
constexpr double few_steps = 3;
// An inconclusive state that would need more units per side than this is not sent to measure
// them: at that point the change sits on the band's edge, and drift between runs is larger than
// what the extra trials would resolve.
constexpr int most_units_suggested = 200;

struct gathered {
  std::vector<std::string> order; // state names, first seen first
  std::map<std::string, side> states;
  std::vector<std::string> devices; // every GPU model seen, first seen first
};

// The GPU model a run measured on: its own record (a run over several devices names each
// state's), else the set's device (files written before runs named theirs), else its result's.
std::string model_of(const benchmark_run& run, const run_context& context) {
  if (run.device && !run.device->name.empty()) {
    return run.device->name;
  }
  if (context.device && !context.device->name.empty()) {
    return context.device->name;
  }
  return run.result ? run.result->device.name : std::string();
}

// The GPU models a side measured on, first seen first, each once.
void add_model(std::vector<std::string>& models, const std::string& model) {
  if (!model.empty() && std::find(models.begin(), models.end(), model) == models.end()) {
    models.push_back(model);
  }
}

std::string joined(const std::vector<std::string>& models) {
  return fmt::format("{}", fmt::join(models, " + "));
}

gathered gather(std::span<const result_set> sets,
                const std::function<bool(std::string_view)>& select) {
  gathered g;
  for (const auto& set : sets) {
    for (const auto& run : set.runs) {
      if (select && !select(run.state_name)) {
        continue;
      }
      auto [it, inserted] = g.states.try_emplace(run.state_name);
      if (inserted) {
        g.order.push_back(run.state_name);
      }
      if (run.status == run_status::ok && run.result) {
        it->second.runs.push_back(&*run.result);
        add_model(it->second.models, model_of(run, set.context));
        add_model(g.devices, model_of(run, set.context));
      } else {
        it->second.problems.push_back(
            run.status == run_status::skipped
                ? "skipped: " + run.message
                : fmt::format("failed ({}): {}",
                              run.error ? to_string(*run.error) : std::string_view("error"),
                              run.message));
      }
    }
  }
  return g;
}

// The verdict from the interval and the band, and for an undecided one the units that would
// likely decide it (toward "same" inside the band, or toward a change outside it). More units
// narrow only the statistical part of the interval (`interval`), not the timer's step in it.
void decide(state_comparison& s, const detail::ratio_interval& interval, double alpha) {
  s.outcome = verdict_of(s.ratio_low, s.ratio_high, s.band);
  if (s.outcome != verdict::inconclusive) {
    return;
  }
  const double edge = std::log1p(s.band);
  const double center = std::abs(std::log(s.ratio_low * s.ratio_high) / 2);
  const double wanted = std::abs(edge - center);
  const double step_part =
      (std::log(s.ratio_high / s.ratio_low) / 2) - interval.log_half_width; // from the timer
  if (s.timer_resolution_ns > 0 && step_part >= wanted) {
    s.notes.push_back(fmt::format(
        "more {} cannot settle it: the timer's step ({:.0f} ns) alone makes the interval "
        "±{:.1f} % wide; measure more work per iteration or widen --threshold",
        s.unit, s.timer_resolution_ns, 100 * std::expm1(step_part)));
    return;
  }
  if (s.new_units == 1 && s.unit == "runs") { // one new run against a baseline of several
    const auto runs = detail::base_runs_for_half_width(interval.log_half_width, wanted - step_part,
                                                       s.base_units, alpha);
    s.notes.push_back(
        runs ? fmt::format("a baseline of about {} runs would settle it (history baseline "
                           "--last {})",
                           *runs, *runs)
             : fmt::format("more base runs cannot settle it: the runs' own spread, which the "
                           "new run has too, is wider than the band (±{:.1f} %); measure the new "
                           "side several times (--new FILE, repeated) or run both sides "
                           "interleaved with kerntime ab A_PROGRAM B_PROGRAM",
                           100 * s.band));
    return;
  }
  const int needed = detail::units_for_half_width(interval.log_half_width, wanted - step_part,
                                                  std::min(s.base_units, s.new_units));
  if (needed > most_units_suggested) {
    s.notes.push_back(fmt::format(
        "more {} would hardly settle it (about {} per side): the change sits on the band's "
        "edge (±{:.1f} %), and runs minutes apart drift by more than that many {} resolve; "
        "widen --threshold, compare several runs per side (--base/--new), or run both sides "
        "interleaved on one GPU with kerntime ab A_PROGRAM B_PROGRAM",
        s.unit, needed, 100 * s.band, s.unit));
    return;
  }
  s.units_needed = needed;
}

// Widens the interval by the timer's step on each side: each median is known to a step at best.
void add_timer_step(state_comparison& s) {
  const double t = s.timer_resolution_ns;
  if (t <= 0 || s.base_ns <= t || s.new_ns <= t) {
    return;
  }
  s.ratio_low *= (1 - t / s.new_ns) / (1 + t / s.base_ns);
  s.ratio_high *= (1 + t / s.new_ns) / (1 - t / s.base_ns);
  s.change_in_steps = (s.new_ns - s.base_ns) / t;
  if (std::abs(*s.change_in_steps) <= few_steps && s.new_ns != s.base_ns) {
    s.notes.push_back(fmt::format(
        "the change, {:+.0f} ns, is {:.1f} steps of the timer ({:.0f} ns): the interval holds a "
        "step on each side",
        s.new_ns - s.base_ns, std::abs(*s.change_in_steps), t));
  }
}

// A verdict in time that the interval in cycles does not give: the clocks, not the code, may
// have moved the time.
void judge_clocks(state_comparison& s, double clock_ratio, const compare_options& options) {
  if (std::abs(clock_ratio - 1) <= clock_tolerance ||
      (s.outcome != verdict::slower && s.outcome != verdict::faster)) {
    return;
  }
  const verdict in_cycles =
      verdict_of(s.ratio_low * clock_ratio, s.ratio_high * clock_ratio, s.band);
  if (in_cycles == s.outcome) {
    return;
  }
  s.clock_mismatch = true;
  s.notes.push_back(fmt::format(
      "{} in time, {} in cycles: the on-GPU SM clocks differ by {:+.1f} %, so the clock, not "
      "the code, may have moved the time; {}re-run both sides with --discard-throttled, or "
      "compare the programs interleaved with kerntime ab A_PROGRAM B_PROGRAM",
      to_string(s.outcome), to_string(in_cycles), 100 * (clock_ratio - 1),
      options.on_clock_mismatch == clock_mismatch_rule::warn
          ? "the gate passes it (--on-clock-mismatch warn); "
          : "the gate fails it (--on-clock-mismatch fail); "));
}

state_comparison compare_state(const std::string& name, const side& base, const side& changed,
                               const compare_options& options) {
  state_comparison s;
  s.state_name = name;
  s.metric = options.metric.value_or(base.runs.front()->protocol_used.metric);
  s.base_ns = median(base.iterations(s.metric));
  s.new_ns = median(changed.iterations(s.metric));
  s.ratio = s.new_ns / s.base_ns;
  // Several base runs against one new run (a baseline from `kerntime history baseline`, used by
  // `run --baseline`): the base runs' spread estimates the between-run spread, no floor needed.
  const bool against_runs = base.runs.size() >= 2 && changed.runs.size() == 1;
  const bool by_runs = (base.runs.size() >= 2 && changed.runs.size() >= 2) || against_runs;
  s.unit = by_runs ? "runs" : "trials";
  const auto base_units = by_runs ? base.run_medians(s.metric) : base.trial_medians(s.metric);
  const auto new_units = by_runs ? changed.run_medians(s.metric) : changed.trial_medians(s.metric);
  s.base_units = static_cast<int>(base_units.size());
  s.new_units = static_cast<int>(new_units.size());

  s.band = options.threshold;
  s.band_reason = "threshold";
  if (!by_runs && s.metric == headline_metric::span) {
    const double idle = 1 - median(base.iterations(headline_metric::busy)) / s.base_ns;
    if (idle >= gapped_fraction && gap_floor_per_idle_fraction * idle > s.band) {
      s.band = gap_floor_per_idle_fraction * idle;
      s.band_reason = fmt::format(
          "between-run floor: {:.0f} % of each iteration is idle between GPU records, which moves "
          "between processes; compare busy time (--metric busy) or several runs per side",
          100 * idle);
    }
  }
  if (!by_runs && !base.runs.front()->protocol_used.flush_l2 && hot_l2_floor > s.band) {
    s.band = hot_l2_floor;
    s.band_reason = "between-run floor: on a hot L2 the time depends on where each process's "
                    "buffers land in memory (a 16 MiB copy moved by up to 6.6 % between processes "
                    "on the H200); compare several runs per side";
  }
  s.timer_resolution_ns = std::max(base.timer_resolution_ns(), changed.timer_resolution_ns());
  const auto interval =
      against_runs
          ? detail::prediction_log_ratio_interval(base_units, new_units.front(), options.alpha)
          : detail::welch_log_ratio_interval(base_units, new_units, options.alpha);
  if (interval) {
    s.ratio_low = interval->low;
    s.ratio_high = interval->high;
    add_timer_step(s);
    decide(s, *interval, options.alpha);
  } else {
    s.ratio_low = s.ratio_high = s.ratio;
    s.outcome = verdict::inconclusive;
    s.notes.push_back(fmt::format("an interval needs at least 2 {} per side (base {}, new {})",
                                  s.unit, s.base_units, s.new_units));
  }

  s.base_sm_clock_mhz = base.sm_clock_mhz();
  s.new_sm_clock_mhz = changed.sm_clock_mhz();
  if (s.base_sm_clock_mhz && s.new_sm_clock_mhz) {
    const double clock_ratio = *s.new_sm_clock_mhz / *s.base_sm_clock_mhz;
    s.cycles_ratio = s.ratio * clock_ratio;
    if (std::abs(clock_ratio - 1) > clock_tolerance) {
      s.notes.push_back(fmt::format(
          "on-GPU SM clocks differ: base {:.0f} MHz, new {:.0f} MHz ({:+.1f} %); in cycles the "
          "ratio is {:.3f}",
          *s.base_sm_clock_mhz, *s.new_sm_clock_mhz, 100 * (clock_ratio - 1), *s.cycles_ratio));
    }
    judge_clocks(s, clock_ratio, options);
  }
  s.regression = s.outcome == verdict::slower &&
                 !(s.clock_mismatch && options.on_clock_mismatch == clock_mismatch_rule::warn);
  // Per side: throttling, and a spread between preparations of half the band or more (its trials
  // are preparations, so the interval holds that spread; say how wide, and what it leaves out).
  for (const auto& [label, which] : {std::pair{"base", &base}, std::pair{"new", &changed}}) {
    if (const std::string throttled = which->throttling(); !throttled.empty()) {
      s.notes.push_back(fmt::format("{} throttled: {}", label, throttled));
    }
    if (const auto spread = which->preparation_spread(); spread && spread->first >= s.band / 2) {
      s.notes.push_back(fmt::format(
          "{}: its {} preparations spread by {:.2f} % (one SD), which the interval holds; a "
          "fresh process moves such a state further (docs/ab.md, \"What moves a "
          "preparation\"): compare several runs per side, or use kerntime ab",
          label, spread->second, 100 * spread->first));
    }
  }
  if (base.all_cupti() && changed.all_cupti()) {
    s.kernels = kernel_changes(base, changed);
  } else {
    s.notes.push_back("a side was timed with CUDA events: no per-kernel comparison");
  }
  return s;
}

} // namespace

std::optional<double> parse_threshold(std::string_view text) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) {
    text.remove_suffix(1);
  }
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return percent ? value / 100 : value;
}

void check_compare_options(const compare_options& options) {
  if (!(options.threshold > 0 && options.threshold < 1)) {
    throw invalid_argument(
        fmt::format("the threshold must be a fraction in (0, 1) (got {}); e.g. 0.02 for ±2 %",
                    options.threshold));
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    throw invalid_argument(fmt::format(
        "alpha must be in (0, 1) (got {}); e.g. 0.05 for 95 % intervals", options.alpha));
  }
}

comparison compare(std::span<const result_set> base, std::span<const result_set> changed,
                   const compare_options& options) {
  check_compare_options(options);
  if (base.empty() || changed.empty()) {
    throw invalid_argument("compare needs at least one result set on each side");
  }
  const gathered b = gather(base, options.select);
  const gathered c = gather(changed, options.select);
  comparison result;
  result.options = options;
  result.base_device = joined(b.devices);
  result.new_device = joined(c.devices);
  // One model a side: the whole sets must match. Runs over several models (--devices over mixed
  // GPUs) are checked state by state below.
  if (!options.allow_different_devices && b.devices.size() == 1 && c.devices.size() == 1 &&
      b.devices != c.devices) {
    throw invalid_argument(fmt::format(
        "the runs are from different GPUs (base {}, new {}): their times do not compare; pass "
        "--allow-different-devices to compare them anyway",
        result.base_device, result.new_device));
  }
  for (const auto& name : b.order) {
    const auto other = c.states.find(name);
    if (other == c.states.end()) {
      result.only_in_base.push_back(name);
      continue;
    }
    const side& base_side = b.states.at(name);
    const side& new_side = other->second;
    if (!options.allow_different_devices && !base_side.models.empty() && !new_side.models.empty() &&
        base_side.models != new_side.models) {
      throw invalid_argument(fmt::format(
          "state {} ran on {} in the base and on {} in the new results: times from different "
          "GPU models do not compare; pass --allow-different-devices to compare them anyway",
          name, joined(base_side.models), joined(new_side.models)));
    }
    if (base_side.runs.empty() || new_side.runs.empty()) {
      const auto& problems = base_side.runs.empty() ? base_side.problems : new_side.problems;
      result.not_compared.push_back(fmt::format("{}: {} {}", name,
                                                base_side.runs.empty() ? "base" : "new",
                                                problems.empty() ? "" : problems.front()));
      continue;
    }
    result.states.push_back(compare_state(name, base_side, new_side, options));
  }
  for (const auto& name : c.order) {
    if (!b.states.contains(name)) {
      result.only_in_new.push_back(name);
    }
  }
  if (result.states.empty() && options.require_common_state) {
    throw invalid_argument(fmt::format(
        "no state was measured in both the base and the new results ({} base states, {} new); "
        "compare results of the same benchmarks (kerntime list shows the names)",
        b.order.size(), c.order.size()));
  }
  return result;
}

bool has_regression(const comparison& c) {
  return std::any_of(c.states.begin(), c.states.end(),
                     [](const state_comparison& s) { return s.regression; });
}

std::string clock_mismatch_advice(const comparison& c) {
  const auto slower_by_clock =
      std::count_if(c.states.begin(), c.states.end(), [](const state_comparison& s) {
        return s.clock_mismatch && s.outcome == verdict::slower;
      });
  if (slower_by_clock == 0) {
    return "";
  }
  return fmt::format(
      "{} state(s) read slower in time but not in cycles: the on-GPU clocks of the two sides "
      "differed (a power cap, throttling); the gate {} them (--on-clock-mismatch {}); re-run "
      "both sides with --discard-throttled, or run them interleaved on one GPU with kerntime "
      "ab A_PROGRAM B_PROGRAM, which cancels the drift",
      slower_by_clock,
      c.options.on_clock_mismatch == clock_mismatch_rule::warn ? "passes" : "fails",
      to_string(c.options.on_clock_mismatch));
}

std::string verdict_text(const state_comparison& s) {
  std::string text(to_string(s.outcome));
  return s.clock_mismatch ? text + " (clock)" : text;
}

} // namespace kerntime
