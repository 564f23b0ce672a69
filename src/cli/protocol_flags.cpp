#include "cli/protocol_flags.hpp"

#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {

std::string flag(std::string_view name) {
  return std::string(name);
}

namespace {

// --warmup as typed: a count of iterations, or auto.
void read_warmup_flag(const std::string& text, protocol_request& request) {
  if (text == "auto") {
    request.warmup_auto = true;
    return;
  }
  long long count = 0;
  const char* end = text.data() + text.size();
  const auto [stop, problem] = std::from_chars(text.data(), end, count);
  if (text.empty() || problem != std::errc() || stop != end) {
    throw invalid_argument(fmt::format(
        "--warmup takes a count of iterations or auto (got \"{}\"); e.g. --warmup 10 or --warmup "
        "auto",
        text));
  }
  request.warmup = count;
}

} // namespace

void add_trial_protocol_options(CLI::App& app, trial_protocol_flags& flags) {
  auto& p = flags.protocol;
  const auto& n = protocol_flag_names;
  app.add_option(flag(n.warmup), flags.warmup,
                 "Untimed iterations before measuring, or auto: after that many, go on until the "
                 "iteration time has settled")
      ->capture_default_str();
  app.add_option(flag(n.repeats), p.repeats, "Measured iterations per trial")
      ->capture_default_str();
  app.add_option(flag(n.input_sets), p.input_sets,
                 "Input copies the work rotates over, so iterations see different addresses")
      ->capture_default_str();
  app.add_flag_callback(
      flag(n.no_flush), [&p] { p.flush_l2 = false; },
      "Do not flush the L2 before each iteration (hot-cache numbers)");
  app.add_option(
      flag(n.flush_bytes), flags.flush_bytes,
      "Size of the L2 flush's buffer, one load per 128-byte line of it (default: 4 x L2)");
  app.add_option(flag(n.backend), p.backend,
                 "Timer: auto (CUPTI, else CUDA events), cupti (fail without it) or events")
      ->capture_default_str();
  app.add_option(flag(n.metric), p.metric,
                 "Headline per iteration: span (first start to last end) or busy (sum of GPU "
                 "activity)")
      ->capture_default_str();
  app.add_flag_callback(
      flag(n.no_telemetry), [&p] { p.telemetry = false; }, "Do not read NVML or the on-GPU clock");
  app.add_option(flag(n.throttle_threshold), p.throttle_threshold,
                 "Flag a trial as throttled when the SM clock measured on the GPU during it is "
                 "below this fraction of the maximum SM clock (0.9 = 90 %); NVML's clock-event "
                 "reasons are reported beside it, never as the verdict")
      ->capture_default_str();
  app.add_flag(flag(n.discard_throttled), p.discard_throttled,
               "Re-run throttled trials after a short pause (at most 3 re-runs in all)");
}

void read_trial_protocol(const CLI::App& app, trial_protocol_flags& flags) {
  read_warmup_flag(flags.warmup, flags.protocol);
  if (app.count(flag(protocol_flag_names.flush_bytes)) > 0) {
    flags.protocol.flush_bytes = flags.flush_bytes;
  }
}

} // namespace kerntime::detail
