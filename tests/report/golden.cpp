#include "golden.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace kerntime::test {
namespace {

std::string golden_path(const std::string& name) {
  return std::string(KERNTIME_REPORT_GOLDEN_DIR) + "/" + name;
}

} // namespace

std::string read_golden(const std::string& name) {
  std::ifstream in(golden_path(name), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_matches_golden(const std::string& actual, const std::string& name) {
  if (const char* update = std::getenv("KERNTIME_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(golden_path(name), std::ios::binary) << actual;
  }
  const std::string expected = read_golden(name);
  ASSERT_FALSE(expected.empty()) << "missing golden file " << golden_path(name);
  // Report the first differing line: a whole-report diff is unreadable in a test log.
  std::istringstream a(actual);
  std::istringstream e(expected);
  std::string actual_line;
  std::string expected_line;
  for (int line = 1;; ++line) {
    const bool more_actual = static_cast<bool>(std::getline(a, actual_line));
    const bool more_expected = static_cast<bool>(std::getline(e, expected_line));
    if (!more_actual && !more_expected) {
      break;
    }
    ASSERT_EQ(actual_line, expected_line) << name << " differs at line " << line;
  }
  EXPECT_EQ(actual, expected);
}

} // namespace kerntime::test
