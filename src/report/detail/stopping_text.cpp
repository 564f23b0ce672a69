#include "report/detail/stopping_text.hpp"

#include <fmt/format.h>

#include "result/message_words.hpp"

namespace kerntime::detail {
namespace {

std::string reason_text(stop_reason reason) {
  switch (reason) {
  case stop_reason::trial_count:
    return "";
  case stop_reason::interval_reached:
    return ", target reached";
  case stop_reason::max_trials:
    return ", stopped by max_trials before the target";
  case stop_reason::max_time:
    return ", stopped by max_time before the target";
  case stop_reason::timer_resolution:
    return ", stopped: the timer's step alone is wider than the target";
  }
  return "";
}

} // namespace

std::string_view stopping_rule_name(const protocol& p) {
  return p.stop_at_ci ? "stop_at_ci" : "fixed";
}

bool adaptive_stopping(const protocol& p) {
  return p.stop_at_ci.has_value() || p.warmup_auto;
}

std::string describe_stopping(const measurement_result& r) {
  const protocol& p = r.protocol_used;
  const stopping_summary& s = r.stopping;
  std::string text(stopping_rule_name(p));
  text += p.stop_at_ci ? fmt::format(" ±{} %: ", *p.stop_at_ci) : ": ";
  text += counted(s.trials, "trial") + reason_text(s.reason);
  text += s.half_width ? fmt::format(" (median within ±{:.2f} %)", *s.half_width * 100)
                       : " (no 95 % interval of the median: it needs 6 trials)";
  if (p.warmup_auto) {
    text += fmt::format("; warm-up auto: {}{}", counted(s.warmup_iterations, "iteration"),
                        s.warmup_settled ? "" : " (not settled)");
  }
  return text;
}

} // namespace kerntime::detail
