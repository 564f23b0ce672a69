// The comparison as people and CI read it: markdown with the regressions first and the kernels
// that moved, and JSON with every number.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "kerntime/compare.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"
#include "result/message_words.hpp"

namespace kerntime {
namespace {

using detail::change_text;
using detail::counted;
using json = nlohmann::ordered_json;

constexpr std::size_t name_width = 70;

int rank(verdict v) { // the order a reader needs them in
  switch (v) {
  case verdict::slower:
    return 0;
  case verdict::inconclusive:
    return 1;
  case verdict::faster:
    return 2;
  case verdict::same:
    return 3;
  }
  return 4;
}

std::string microseconds(double ns) {
  return fmt::format("{:.3f}", ns / 1e3);
}

// A kernel row is shown when it appeared, disappeared, changed its calls or moved by more than
// the state's band.
bool moved(const kernel_change& k, double band) {
  if (!k.base_mean_ns || !k.new_mean_ns) {
    return true;
  }
  if (std::abs(k.base_calls - k.new_calls) > 1e-9) {
    return true;
  }
  const double ratio = *k.new_mean_ns / *k.base_mean_ns;
  return ratio > 1 + band || ratio < 1 / (1 + band);
}

std::string verdict_cell(const state_comparison& s) {
  std::string text = s.regression ? "**" + verdict_text(s) + "**" : verdict_text(s);
  if (s.outcome == verdict::inconclusive && s.units_needed) {
    // compare counts runs or trials per side; ab counts its observations, shared by both sides
    const bool shared = s.unit == "process pairs" || s.unit == "blocks";
    text += fmt::format(" (~{} {}{} would settle it)", *s.units_needed, s.unit,
                        shared ? " in all" : " per side");
  }
  return text;
}

} // namespace

std::string comparison_markdown(const comparison& c) {
  using detail::markdown_code_span;
  using detail::markdown_text;
  std::string out;
  int counts[4] = {};
  for (const auto& s : c.states) {
    ++counts[rank(s.outcome)];
  }
  if (c.method == "ab") {
    out += fmt::format("## kerntime ab: {}, A (base) vs B (new)\n\n", markdown_text(c.new_device));
    out +=
        fmt::format("{} slower, {} faster, {} same, {} inconclusive of {}. \"same\": the "
                    "{:.0f} % confidence sequence of B/A, valid at every look, lies within "
                    "±{:.1f} % (or the state's wider band: its spread floor); trials "
                    "interleaved A B B A, each a fresh preparation.\n\n",
                    counts[0], counts[2], counts[3], counts[1], counted(c.states.size(), "state"),
                    100 * (1 - c.options.alpha), 100 * c.options.threshold);
  } else {
    out += fmt::format("## kerntime compare: {} vs {}\n\n", markdown_text(c.base_device),
                       markdown_text(c.new_device));
    out += fmt::format("{} slower, {} faster, {} same, {} inconclusive of {}. \"same\": the "
                       "95 % interval lies within ±{:.1f} % (or the state's wider band); intervals "
                       "over trials, or over runs where each side has several.\n\n",
                       counts[0], counts[2], counts[3], counts[1],
                       counted(c.states.size(), "state"), 100 * c.options.threshold);
  }
  std::vector<const state_comparison*> ordered;
  for (const auto& s : c.states) {
    ordered.push_back(&s);
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
    return rank(a->outcome) < rank(b->outcome);
  });
  out += "| state | metric | base (µs) | new (µs) | change | 95 % interval | band | verdict |\n";
  out += "|---|---|---:|---:|---:|---|---:|---|\n";
  for (const auto* s : ordered) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} … {} ({} {}+{}) | ±{:.1f} % | {} |\n",
                       markdown_code_span(s->state_name, name_width), to_string(s->metric),
                       microseconds(s->base_ns), microseconds(s->new_ns), change_text(s->ratio),
                       change_text(s->ratio_low), change_text(s->ratio_high), s->unit,
                       s->base_units, s->new_units, 100 * s->band, verdict_cell(*s));
  }
  for (const auto* s : ordered) {
    std::vector<const kernel_change*> rows;
    for (const auto& k : s->kernels) {
      if (moved(k, s->band)) {
        rows.push_back(&k);
      }
    }
    if (rows.empty() && s->notes.empty() && s->band_reason == "threshold") {
      continue;
    }
    out += fmt::format("\n### {}\n\n", markdown_code_span(s->state_name, name_width));
    if (s->band_reason != "threshold") {
      out += fmt::format("- band ±{:.1f} %: {}\n", 100 * s->band, markdown_text(s->band_reason));
    }
    for (const auto& note : s->notes) {
      out += "- " + markdown_text(note) + "\n";
    }
    if (rows.empty()) {
      continue;
    }
    out += "\n| kernel | kind | base (µs) | new (µs) | change | calls per iteration |\n";
    out += "|---|---|---:|---:|---:|---|\n";
    for (const auto* k : rows) {
      const std::string change = !k->base_mean_ns ? "appeared"
                                 : !k->new_mean_ns
                                     ? "disappeared"
                                     : change_text(*k->new_mean_ns / *k->base_mean_ns);
      out += fmt::format("| {} | {} | {} | {} | {} | {:g} → {:g} |\n",
                         markdown_code_span(k->name, name_width), to_string(k->kind),
                         k->base_mean_ns ? microseconds(*k->base_mean_ns) : "—",
                         k->new_mean_ns ? microseconds(*k->new_mean_ns) : "—", change,
                         k->base_calls, k->new_calls);
    }
  }
  const auto list = [&](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) {
      return;
    }
    out += fmt::format("\n### {} ({})\n\n", title, names.size());
    for (const auto& name : names) {
      out += "- " + markdown_text(name) + "\n";
    }
  };
  list("Only in the base", c.only_in_base);
  list("Only in the new results", c.only_in_new);
  list("Not compared", c.not_compared);
  return out;
}

std::string comparison_json(const comparison& c) {
  json states = json::array();
  for (const auto& s : c.states) {
    json kernels = json::array();
    for (const auto& k : s.kernels) {
      kernels.push_back({{"name", k.name},
                         {"kind", std::string(to_string(k.kind))},
                         {"base_mean_ns", k.base_mean_ns ? json(*k.base_mean_ns) : json()},
                         {"new_mean_ns", k.new_mean_ns ? json(*k.new_mean_ns) : json()},
                         {"base_calls_per_iteration", k.base_calls},
                         {"new_calls_per_iteration", k.new_calls}});
    }
    const auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
    states.push_back({{"state_name", s.state_name},
                      {"metric", std::string(to_string(s.metric))},
                      {"base_ns", s.base_ns},
                      {"new_ns", s.new_ns},
                      {"ratio", s.ratio},
                      {"ratio_low", s.ratio_low},
                      {"ratio_high", s.ratio_high},
                      {"unit", s.unit},
                      {"base_units", s.base_units},
                      {"new_units", s.new_units},
                      {"band", s.band},
                      {"band_reason", s.band_reason},
                      {"verdict", std::string(to_string(s.outcome))},
                      {"clock_mismatch", s.clock_mismatch},
                      {"regression", s.regression},
                      {"units_needed", s.units_needed ? json(*s.units_needed) : json()},
                      {"base_sm_clock_mhz", optional(s.base_sm_clock_mhz)},
                      {"new_sm_clock_mhz", optional(s.new_sm_clock_mhz)},
                      {"cycles_ratio", optional(s.cycles_ratio)},
                      {"timer_resolution_ns", s.timer_resolution_ns},
                      {"change_in_steps", optional(s.change_in_steps)},
                      {"unit_sd", optional(s.unit_sd)},
                      {"unit_sd_adjusted", optional(s.unit_sd_adjusted)},
                      {"reference_beta", optional(s.reference_beta)},
                      {"notes", s.notes},
                      {"kernels", std::move(kernels)}});
  }
  const json document = {{"kerntime_compare_version", 1},    {"method", c.method},
                         {"threshold", c.options.threshold}, {"alpha", c.options.alpha},
                         {"base_device", c.base_device},     {"new_device", c.new_device},
                         {"regression", has_regression(c)},  {"states", std::move(states)},
                         {"only_in_base", c.only_in_base},   {"only_in_new", c.only_in_new},
                         {"not_compared", c.not_compared}};
  return document.dump(2, ' ', false, nlohmann::detail::error_handler_t::replace) + "\n";
}

} // namespace kerntime
