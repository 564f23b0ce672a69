#include "report/detail/host_facts.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace kerntime::detail {

std::string host_name() {
  std::array<char, 256> buffer{};
  if (::gethostname(buffer.data(), buffer.size() - 1) != 0) {
    return {};
  }
  return buffer.data();
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::array<char, 32> buffer{};
  const auto length = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(buffer.data(), length);
}
namespace {

std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "32K", "1024K", "32M" as sysfs writes cache sizes.
std::int64_t parse_size(const std::string& text) {
  std::istringstream in(text);
  std::int64_t value = 0;
  char unit = 0;
  in >> value >> unit;
  if (unit == 'K') {
    return value * 1024;
  }
  if (unit == 'M') {
    return value * 1024 * 1024;
  }
  return value;
}

// The shared_cpu_list "0-3,8-11" names how many logical CPUs share the cache.
int count_cpus(const std::string& list) {
  int count = 0;
  std::istringstream in(list);
  std::string range;
  while (std::getline(in, range, ',')) {
    const auto dash = range.find('-');
    if (dash == std::string::npos) {
      count += range.empty() ? 0 : 1;
    } else {
      count += std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
    }
  }
  return count;
}

double read_mhz() {
  // cpuinfo_max_freq is in kHz; /proc/cpuinfo's "cpu MHz" is the fallback where cpufreq is absent.
  if (auto khz = first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
      !khz.empty()) {
    return std::stod(khz) / 1000.0;
  }
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        return std::stod(line.substr(colon + 1));
      }
    }
  }
  return 0;
}

} // namespace

host_facts read_host_facts() {
  host_facts facts;
  facts.num_cpus = static_cast<int>(std::thread::hardware_concurrency());
  try {
    facts.mhz_per_cpu = read_mhz();
  } catch (const std::exception&) {
    facts.mhz_per_cpu = 0;
  }
  // Like Google Benchmark: scaling counts as enabled unless the governor is "performance".
  const auto governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  facts.cpu_scaling_enabled = !governor.empty() && governor != "performance";

  const std::filesystem::path cache_root = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code error;
  for (int index = 0;; ++index) {
    const auto folder = cache_root / ("index" + std::to_string(index));
    if (!std::filesystem::exists(folder, error)) {
      break;
    }
    cpu_cache cache;
    cache.type = first_line(folder / "type");
    try {
      cache.level = std::stoi(first_line(folder / "level"));
      cache.size_bytes = parse_size(first_line(folder / "size"));
      cache.num_sharing = count_cpus(first_line(folder / "shared_cpu_list"));
    } catch (const std::exception&) {
      continue;
    }
    facts.caches.push_back(cache);
  }

  std::ifstream load("/proc/loadavg");
  for (double value = 0; facts.load_avg.size() < 3 && load >> value;) {
    facts.load_avg.push_back(value);
  }
  return facts;
}

} // namespace kerntime::detail
