#pragma once
// The comparison with a baseline in the HTML report: its section (a chart of every state's ratio
// with its interval, a table, the states only one side has) and the words and colours of a
// verdict that the latency tables and each state's article share.

#include <map>
#include <ostream>
#include <string>
#include <string_view>

#include "kerntime/comparison.hpp"

namespace kerntime::detail {

// The comparison the page shows (or none), looked up by state.
class compared_states {
public:
  explicit compared_states(const comparison* compared);
  [[nodiscard]] const comparison* all() const { return compared_; }
  [[nodiscard]] const state_comparison* find(std::string_view state) const;
  // The intervals' confidence, 1 - alpha (0.95 without a comparison).
  [[nodiscard]] double confidence() const;

private:
  const comparison* compared_;
  std::map<std::string, const state_comparison*, std::less<>> by_state_;
};

// The verdict as a word and as the colour class of its row, bar and text; a verdict the clocks
// may explain reads "slower (clock)" (kerntime::verdict_text's spelling) in its own colour.
[[nodiscard]] std::string verdict_word(const state_comparison& s);
[[nodiscard]] std::string verdict_class(const state_comparison& s);
[[nodiscard]] std::string ratio_text(const state_comparison& s);
// Every figure behind a verdict, for a tooltip.
[[nodiscard]] std::string ratio_tooltip(const state_comparison& s, double confidence);

void print_comparison_section(std::ostream& out, const comparison& c, double confidence);

} // namespace kerntime::detail
