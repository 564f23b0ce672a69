// kerntime compare (include/kerntime/compare.hpp) for Python: result sets read from kerntime JSON
// or made from a session's runs, and the per-state verdicts of comparing two of them. The pytest
// plugin's --kerntime-baseline uses it; the method is the C++ one, never re-implemented.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <array>
#include <filesystem>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "compare/ab_comparison.hpp"
#include "compare/confidence_sequence.hpp"
#include "compare/round_blocks.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

// The options as a user spells them ("2%" or "0.02"), checked before anything is compared.
compare_options make_compare_options(const std::string& threshold, double alpha,
                                     bool require_common_state,
                                     const std::string& on_clock_mismatch) {
  compare_options options;
  const auto rule = parse_clock_mismatch_rule(on_clock_mismatch);
  if (!rule) {
    throw invalid_argument("the clock-mismatch rule " + on_clock_mismatch +
                           " is neither warn nor fail");
  }
  options.on_clock_mismatch = *rule;
  options.require_common_state = require_common_state;
  const auto fraction = parse_threshold(threshold);
  if (!fraction) {
    throw invalid_argument("the threshold " + threshold +
                           " is not a fraction or a percentage; e.g. 2% or 0.02");
  }
  options.threshold = *fraction;
  options.alpha = alpha;
  check_compare_options(options);
  return options;
}

comparison compare_result_sets(const result_set& base, const result_set& changed,
                               const compare_options& options) {
  return compare(std::span(&base, 1), std::span(&changed, 1), options);
}

// The pytest plugin compares one test at a time: the session's HTML shows all those states.
std::string render_html_compared(const run_context& context, const std::vector<benchmark_run>& runs,
                                 const std::vector<state_comparison>& states,
                                 const compare_options& options, const std::string& base_device,
                                 const std::string& new_device) {
  comparison c;
  c.states = states;
  c.options = options;
  c.base_device = base_device;
  c.new_device = new_device;
  std::ostringstream out;
  make_html_writer(&c)->print(out, context, runs);
  return out.str();
}

std::string decision_name(detail::ab_decision d) {
  switch (d) {
  case detail::ab_decision::slower:
    return "slower";
  case detail::ab_decision::faster:
    return "faster";
  case detail::ab_decision::same:
    return "same";
  case detail::ab_decision::inconclusive:
    return "inconclusive";
  case detail::ab_decision::undecided:
    break;
  }
  return "undecided";
}

py::tuple interval_tuple(const detail::ab_interval& i) {
  return py::make_tuple(i.ratio, i.low, i.high);
}

} // namespace

// The decision core of A/B runs (src/compare/confidence_sequence.hpp, docs/ab.md): kerntime.ab
// drives it from Python, the arithmetic stays C++.
void bind_sequential_ratio(py::module_& m) {
  py::class_<detail::sequential_ratio>(m, "SequentialRatio")
      .def(py::init<double, double>(), py::arg("alpha") = detail::default_alpha,
           py::arg("timer_step_fraction") = 0.0,
           "Lai's t-mixture confidence sequence for the ratio B/A over A B B A blocks; the "
           "interval is never narrower than the timer's step (a fraction of the median).")
      .def("add_block", &detail::sequential_ratio::add_block, py::arg("log_ratio"))
      .def_property_readonly("blocks", &detail::sequential_ratio::blocks)
      .def(
          "interval",
          [](const detail::sequential_ratio& s) { return interval_tuple(s.interval()); },
          "(ratio, low, high) of B/A; (ratio, 0, inf) while too few blocks bound it.")
      .def(
          "decision",
          [](const detail::sequential_ratio& s, double band, double same_band) {
            return decision_name(detail::decide(s.interval(), band, same_band));
          },
          py::arg("band") = detail::default_band, py::arg("same_band") = 0.0,
          "slower, faster, same, or undecided while the interval straddles the band's edge; "
          "with a wider same_band, same is judged against it (slower and faster at band).")
      .def(
          "conclusion",
          [](const detail::sequential_ratio& s, double band, double same_band) {
            return decision_name(detail::conclude(s.interval(), band, same_band));
          },
          py::arg("band") = detail::default_band, py::arg("same_band") = 0.0,
          "The verdict when the run stops: decision(), with undecided as inconclusive.")
      .def("no_verdict_reachable", &detail::sequential_ratio::no_verdict_reachable,
           py::arg("band") = detail::default_band,
           "True when more blocks can bring no verdict: the timer's step alone is as wide as the "
           "band, and the interval without it already lies inside the band.")
      .def(
          "observations_to_decide",
          [](const detail::sequential_ratio& s, double band, std::size_t limit,
             std::optional<double> later_variance) {
            return s.observations_to_decide(band, limit, later_variance.value_or(s.variance()));
          },
          py::arg("band"), py::arg("limit") = 100'000, py::arg("later_variance") = py::none(),
          "How many blocks in all would decide against the band if the mean and the spread "
          "stayed as they are (or each later block had `later_variance`); None when none up to "
          "`limit` would.")
      .def("observations_to_settle", &detail::sequential_ratio::observations_to_settle,
           py::arg("same_band"), py::arg("change_band"), py::arg("limit"),
           py::arg("later_variance"),
           "How many blocks in all the spread would need at the most favourable ratio, each "
           "later block of `later_variance`; None beyond `limit`.")
      .def("variance", &detail::sequential_ratio::variance,
           "The blocks' squared deviations from their mean over their count.");
  m.def(
      "look_at_spread",
      [](const detail::sequential_ratio& s, double threshold, double same_band,
         std::size_t widen_within, double widest_band, std::size_t give_up_beyond,
         std::optional<double> later_variance) {
        const auto look = detail::look_at_spread(s, threshold, same_band, widen_within, widest_band,
                                                 give_up_beyond, later_variance);
        return std::pair{look.give_up, look.same_band};
      },
      py::arg("sequence"), py::arg("threshold"), py::arg("same_band"), py::arg("widen_within"),
      py::arg("widest_band"), py::arg("give_up_beyond"), py::arg("later_variance") = py::none(),
      "The spread floor's look at an undecided sequence (docs/ab.md): (give_up, same_band), "
      "same_band the wider band for `same` to go on at, or None; later_variance: each block from "
      "here on of that variance (rounds of more blocks).");
  m.attr("give_up_margin") = detail::give_up_margin;
  m.attr("widest_band_factor") = detail::widest_band_factor;
  m.def(
      "project_blocks",
      [](const detail::sequential_ratio& s, double same_band, double threshold, double within,
         double between, std::size_t most_blocks, std::size_t limit) {
        std::vector<std::pair<std::size_t, std::optional<std::size_t>>> out;
        for (const auto& p :
             detail::project_blocks(s, same_band, threshold, {.within = within, .between = between},
                                    most_blocks, limit)) {
          out.emplace_back(p.blocks, p.rounds);
        }
        return out;
      },
      py::arg("sequence"), py::arg("same_band"), py::arg("threshold"), py::arg("within"),
      py::arg("between"), py::arg("most_blocks"), py::arg("limit"),
      "kerntime ab's projection (compare/round_blocks): for 1, 2, 4, ... blocks a round up to "
      "most_blocks, (blocks, the rounds in all to the nearer verdict or None) with a block's own "
      "variance `within` and the process pairs' `between`.");
  m.def(
      "blocks_for_next_round",
      [](const std::vector<std::pair<std::size_t, std::optional<std::size_t>>>& projections,
         std::size_t rounds_done, std::size_t min_rounds, double round_seconds,
         double block_seconds) {
        std::vector<detail::blocks_projection> read;
        for (const auto& [blocks, rounds] : projections) {
          read.push_back({blocks, rounds});
        }
        return detail::blocks_for_next_round(
            read, rounds_done, min_rounds,
            {.round_seconds = round_seconds, .block_seconds = block_seconds});
      },
      py::arg("projections"), py::arg("rounds_done"), py::arg("min_rounds"),
      py::arg("round_seconds"), py::arg("block_seconds"),
      "kerntime ab's choice (compare/round_blocks): of project_blocks' projections, the blocks "
      "whose rounds left cost least.");
  m.def(
      "block_log_ratio",
      [](const std::array<double, detail::trials_per_block>& medians) {
        return detail::block_log_ratio(detail::trial_order::balanced, medians);
      },
      py::arg("medians"),
      "One A B B A block's paired log-ratio from its four trial times in the order they ran.");
  m.def("preparation_time_ns", &detail::preparation_time_ns, py::arg("measurement"),
        "The time of one preparation that an A/B decision reads: the clipped mean of its headline "
        "metric's readings, finer than the timer's step (docs/ab.md).");
  m.def(
      "resolution_fraction",
      [](const std::vector<const measurement_result*>& preparations) {
        return detail::resolution_fraction(preparations);
      },
      py::arg("preparations"),
      "The finest ratio these preparations resolve, as a fraction: the timer's step over their "
      "time, divided by the square root of the fewest readings where the readings spread.");
}

void bind_compare(py::module_& m) {
  bind_sequential_ratio(m);
  py::class_<result_set>(m, "ResultSet")
      .def(py::init<>())
      .def(py::init([](run_context context, std::vector<benchmark_run> runs) {
             return result_set{std::move(context), std::move(runs)};
           }),
           py::arg("context"), py::arg("runs"))
      .def_readwrite("context", &result_set::context)
      .def_readwrite("runs", &result_set::runs);
#ifdef KERNTIME_READS_RESULTS
  m.def(
      "read_result_set", [](const std::string& path) { return read_result_set(path); },
      py::arg("path"),
      "A kerntime JSON file read back (raises InvalidArgument naming the file and the problem).");
  m.def("parse_result_set", &parse_result_set, py::arg("json_text"), py::arg("source"),
        "kerntime JSON text read back; `source` names it in errors.");
#endif

  py::class_<compare_options>(m, "CompareOptions")
      .def(py::init(&make_compare_options), py::arg("threshold") = "2%", py::arg("alpha") = 0.05,
           py::arg("require_common_state") = true, py::arg("on_clock_mismatch") = "warn",
           "threshold: \"2%\" or \"0.02\"; alpha: the intervals are 1 - alpha; "
           "require_common_state=False: no state in common is an empty comparison, not an "
           "error; on_clock_mismatch: warn (a state slower in time but not in cycles passes "
           "the gate as 'slower (clock)') or fail. Raises InvalidArgument for values compare "
           "refuses.")
      .def_readonly("threshold", &compare_options::threshold)
      .def_readonly("alpha", &compare_options::alpha)
      .def_readonly("require_common_state", &compare_options::require_common_state)
      .def_property_readonly("on_clock_mismatch", [](const compare_options& o) {
        return std::string(to_string(o.on_clock_mismatch));
      });

  py::class_<state_comparison>(m, "StateComparison")
      .def_readonly("state_name", &state_comparison::state_name)
      .def_property_readonly(
          "metric", [](const state_comparison& s) { return std::string(to_string(s.metric)); })
      .def_readonly("base_ns", &state_comparison::base_ns)
      .def_readonly("new_ns", &state_comparison::new_ns)
      .def_readonly("ratio", &state_comparison::ratio)
      .def_readonly("ratio_low", &state_comparison::ratio_low)
      .def_readonly("ratio_high", &state_comparison::ratio_high)
      .def_readonly("unit", &state_comparison::unit)
      .def_readonly("base_units", &state_comparison::base_units)
      .def_readonly("new_units", &state_comparison::new_units)
      .def_readonly("band", &state_comparison::band)
      .def_readonly("band_reason", &state_comparison::band_reason)
      .def_property_readonly(
          "verdict", [](const state_comparison& s) { return std::string(to_string(s.outcome)); })
      .def_readonly("units_needed", &state_comparison::units_needed)
      .def_readonly("cycles_ratio", &state_comparison::cycles_ratio)
      .def_readonly("clock_mismatch", &state_comparison::clock_mismatch)
      .def_readonly("regression", &state_comparison::regression)
      .def_property_readonly("verdict_text", &verdict_text)
      .def_readonly("timer_resolution_ns", &state_comparison::timer_resolution_ns)
      .def_readonly("change_in_steps", &state_comparison::change_in_steps)
      .def_readonly("notes", &state_comparison::notes);

  py::class_<comparison>(m, "Comparison")
      .def_readonly("states", &comparison::states)
      .def_readonly("only_in_base", &comparison::only_in_base)
      .def_readonly("only_in_new", &comparison::only_in_new)
      .def_readonly("not_compared", &comparison::not_compared)
      .def_readonly("base_device", &comparison::base_device)
      .def_readonly("new_device", &comparison::new_device)
      .def_property_readonly("has_regression", &has_regression)
      .def("markdown", &comparison_markdown);
  m.def("compare_results", &compare_result_sets, py::arg("base"), py::arg("new"),
        py::arg("options") = compare_options{},
        "kerntime compare of two result sets (docs/compare.md): per state the ratio NEW/BASE, "
        "its interval and a verdict. Raises InvalidArgument when no state is in both, or the "
        "GPUs differ.");
  m.def("render_html_compared", &render_html_compared, py::arg("context"), py::arg("runs"),
        py::arg("states"), py::arg("options"), py::arg("base_device") = "",
        py::arg("new_device") = "",
        "The HTML report of `runs` with each state of `states` (StateComparison, from "
        "compare_results) shown against the baseline.");
}

} // namespace kerntime::python
