#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "golden.hpp"
#include "render.hpp"

namespace kerntime::test {
namespace {

// Cell separators of a markdown table row: pipes not escaped by a backslash.
std::size_t count_separators(const std::string& row) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\') {
      ++i;
    } else if (row[i] == '|') {
      ++count;
    }
  }
  return count;
}

TEST(MarkdownWriter, MatchesGolden) {
  expect_matches_golden(render(*make_markdown_writer()), "report.md");
}

TEST(MarkdownWriter, EveryTableRowHasItsHeaderColumnCount) {
  std::istringstream lines(render(*make_markdown_writer()));
  std::string line;
  std::size_t header_separators = 0;
  int tables = 0;
  bool in_table = false;
  while (std::getline(lines, line)) {
    const bool row = !line.empty() && line.front() == '|';
    if (row && !in_table) {
      header_separators = count_separators(line);
      ++tables;
    } else if (row) {
      EXPECT_EQ(count_separators(line), header_separators) << line;
    }
    in_table = row;
  }
  // Three state tables (gemm_bf16, device_copy, copy_then_gemm) and three kernel tables (one with
  // counter columns), each apart from the others.
  EXPECT_EQ(tables, 6);
}

TEST(MarkdownWriter, ShortensLongNamesButNotBeyondRecognition) {
  const auto text = render(*make_markdown_writer());
  EXPECT_EQ(text.find(long_template_name()), std::string::npos);
  // The deeper template arguments fold away; the kernel and its first template level stay
  // readable. (This hostile name leaves a '<' unclosed, so its parameters stay too.)
  EXPECT_NE(text.find("| `void cutlass::device_kernel<cutlass::gemm::GemmUniversal<\xE2\x80\xA6>"
                      "(Params const&, int*)` | kernel |"),
            std::string::npos);
}

} // namespace
} // namespace kerntime::test
