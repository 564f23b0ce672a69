// Writes the HTML tests' fixture (html_fixture.hpp) as kerntime JSON to the file named by its
// argument: the writers' real output, which check_html_report.py renders with `kerntime report`
// and opens in a browser.

#include <exception>
#include <iostream>

#include "html_fixture.hpp"
#include "kerntime/report.hpp"
#include "sample_runs.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_html_fixture OUT.json\n";
    return 2;
  }
  try {
    const auto runs = kerntime::test::html_fixture_runs();
    kerntime::write_file_atomically(argv[1], [&](std::ostream& out) {
      kerntime::make_json_writer()->print(out, kerntime::test::sample_context(), runs);
    });
  } catch (const std::exception& e) {
    std::cerr << "write_html_fixture: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
