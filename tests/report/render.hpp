#pragma once
// Runs a real writer over the sample runs and returns what it printed.

#include <sstream>
#include <string>

#include "kerntime/report.hpp"
#include "sample_runs.hpp"

namespace kerntime::test {

inline std::string render(report_writer& writer) {
  std::ostringstream out;
  const auto runs = sample_runs();
  writer.print(out, sample_context(), runs);
  return out.str();
}

} // namespace kerntime::test
