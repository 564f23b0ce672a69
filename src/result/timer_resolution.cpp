#include "result/timer_resolution.hpp"

#include <algorithm>
#include <cmath>

namespace kerntime::detail {
namespace {

// Neighbouring values closer than this are one point of the lattice: CUPTI converts the GPU's
// ticks to host nanoseconds, which moves a value by ±1 ns (seen on the H200).
constexpr double same_point_ns = 3;

} // namespace

double timer_step_ns(std::vector<double> durations) {
  std::sort(durations.begin(), durations.end());
  std::vector<double> points; // the centre of each run of values within same_point_ns
  double sum = 0;
  int count = 0;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    if (i > 0 && durations[i] - durations[i - 1] > same_point_ns) {
      points.push_back(sum / count);
      sum = 0;
      count = 0;
    }
    sum += durations[i];
    ++count;
  }
  if (count > 0) {
    points.push_back(sum / count);
  }
  // Two points are one gap: one value and an outlier would read as a "step". Three points give
  // two gaps, so the smallest is seen between neighbours at least once more than by chance.
  if (points.size() < 3) {
    return 0;
  }
  double smallest = points[1] - points[0];
  for (std::size_t i = 2; i < points.size(); ++i) {
    smallest = std::min(smallest, points[i] - points[i - 1]);
  }
  // Every gap is a whole number of steps: the step is the total over the steps it spans, which
  // averages the conversion's jitter out of the smallest gap.
  double steps = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    steps += std::max(1.0, std::round((points[i] - points[i - 1]) / smallest));
  }
  return (points.back() - points.front()) / steps;
}

} // namespace kerntime::detail
