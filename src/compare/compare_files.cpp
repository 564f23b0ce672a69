// The comparison for CI systems: JUnit XML (a testcase per state, a failure per regression, the
// states that could not be compared as skipped) and CSV (a row per compared state).

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "kerntime/compare.hpp"
#include "report/detail/text.hpp"

namespace kerntime {
namespace {

std::string number(const std::optional<double>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

std::string interval_text(const state_comparison& s) {
  return fmt::format("{:+.2f} % (95 % interval {:+.2f} … {:+.2f} %, band ±{:.1f} %)",
                     100 * (s.ratio - 1), 100 * (s.ratio_low - 1), 100 * (s.ratio_high - 1),
                     100 * s.band);
}

} // namespace

std::string comparison_junit(const comparison& c, junit_family family) {
  using detail::xml_escape;
  using property_list = std::vector<std::pair<std::string, std::string>>;
  const std::size_t skipped = c.only_in_base.size() + c.only_in_new.size() + c.not_compared.size();
  const std::size_t tests = c.states.size() + skipped;
  std::size_t failures = 0;
  for (const auto& s : c.states) {
    failures += s.regression ? 1 : 0;
  }
  const auto properties_of = [](const state_comparison& s) {
    property_list properties = {{"verdict", verdict_text(s)},
                                {"metric", std::string(to_string(s.metric))},
                                {"ratio", fmt::format("{}", s.ratio)},
                                {"ratio_low", fmt::format("{}", s.ratio_low)},
                                {"ratio_high", fmt::format("{}", s.ratio_high)},
                                {"band", fmt::format("{}", s.band)},
                                {"base_ns", fmt::format("{}", s.base_ns)},
                                {"new_ns", fmt::format("{}", s.new_ns)},
                                {"cycles_ratio", number(s.cycles_ratio)}};
    for (const auto& note : s.notes) {
      properties.emplace_back("note", note);
    }
    return properties;
  };
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"kerntime compare\" tests=\"{}\" failures=\"{}\">\n", tests,
                     failures);
  out += fmt::format("  <testsuite name=\"kerntime compare\" tests=\"{}\" failures=\"{}\" "
                     "skipped=\"{}\" errors=\"0\">\n",
                     tests, failures, skipped);
  // xunit2 (junit-10.xsd): properties only on the testsuite, each named "STATE.property".
  if (family == junit_family::xunit2 && !c.states.empty()) {
    property_list suite;
    for (const auto& s : c.states) {
      for (auto& [name, value] : properties_of(s)) {
        suite.emplace_back(s.state_name + "." + name, std::move(value));
      }
    }
    out += detail::xml_properties(suite, "    ");
  }
  for (const auto& s : c.states) {
    out += fmt::format("    <testcase classname=\"kerntime.compare\" name=\"{}\">\n",
                       xml_escape(s.state_name));
    if (family == junit_family::xunit1) {
      out += detail::xml_properties(properties_of(s), "      ");
    }
    if (s.regression) {
      out += fmt::format("      <failure type=\"regression\" message=\"{}: {}\"/>\n",
                         xml_escape(verdict_text(s)), xml_escape(interval_text(s)));
    }
    out += "    </testcase>\n";
  }
  const auto skip = [&](const std::string& name, std::string_view why) {
    out += fmt::format("    <testcase classname=\"kerntime.compare\" name=\"{}\">\n      <skipped "
                       "message=\"{}\"/>\n    </testcase>\n",
                       xml_escape(name), xml_escape(why));
  };
  for (const auto& name : c.only_in_base) {
    skip(name, "only in the base results");
  }
  for (const auto& name : c.only_in_new) {
    skip(name, "only in the new results");
  }
  for (const auto& line : c.not_compared) {
    skip(line.substr(0, line.find(':')), line);
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string comparison_csv(const comparison& c) {
  using detail::csv_field;
  std::string out = "state,metric,base_ns,new_ns,ratio,ratio_low,ratio_high,unit,base_units,"
                    "new_units,band,verdict,units_needed,base_sm_clock_mhz,new_sm_clock_mhz,"
                    "cycles_ratio,notes\r\n";
  for (const auto& s : c.states) {
    std::string notes;
    for (const auto& note : s.notes) {
      notes += notes.empty() ? note : "; " + note;
    }
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\r\n",
                       csv_field(s.state_name), to_string(s.metric), s.base_ns, s.new_ns, s.ratio,
                       s.ratio_low, s.ratio_high, s.unit, s.base_units, s.new_units, s.band,
                       verdict_text(s),
                       s.units_needed ? std::to_string(*s.units_needed) : std::string(),
                       number(s.base_sm_clock_mhz), number(s.new_sm_clock_mhz),
                       number(s.cycles_ratio), csv_field(notes));
  }
  return out;
}

} // namespace kerntime
