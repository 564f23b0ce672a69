#include "cli/roofline_flags.hpp"

namespace kerntime::detail {

void add_roofline_options(CLI::App& run, roofline_flags& flags) {
  run.add_option("--peaks", flags.peaks,
                 "JSON file of peaks that replace the built-in table's, e.g. "
                 "{\"flops_per_s\": {\"bf16_tensor\": 989.4e12}, \"bytes_per_s\": 4.8e12} "
                 "(docs/speed-of-light.md)");
  run.add_option("--calibration", flags.calibration,
                 "Show each state's share of what `kerntime calibrate` measured on this GPU "
                 "(its --output file) next to the theoretical peak");
}

roofline_settings load_roofline_settings(const roofline_flags& flags) {
  roofline_settings settings;
  if (!flags.peaks.empty()) {
    settings.overrides = read_peak_overrides(flags.peaks);
  }
  if (!flags.calibration.empty()) {
    settings.achievable = read_calibration(flags.calibration);
    settings.achievable_source = calibration_source(*settings.achievable, flags.calibration);
  }
  return settings;
}

} // namespace kerntime::detail
