#include "cli/device_selection.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include "kerntime/errors.hpp"
#include "report/detail/host_facts.hpp"

namespace kerntime::detail {
namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    parts.push_back(trimmed(text.substr(start, comma - start)));
    if (comma == std::string_view::npos) {
      return parts;
    }
    start = comma + 1;
  }
}

// "GPU-8c3f0b2e-…", the form nvidia-smi and NVML print.
std::string uuid_text(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (std::size_t i = 0; i < sizeof(uuid.bytes); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      text += '-';
    }
    text += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return text;
}

} // namespace

std::vector<int> parse_devices(std::string_view text, int count) {
  const auto there = count < 1    ? std::string("no device is visible here")
                     : count == 1 ? std::string("the one device here is 0")
                                  : fmt::format("the devices here are 0 to {}", count - 1);
  if (trimmed(text) == "all") {
    std::vector<int> all(static_cast<std::size_t>(std::max(count, 0)));
    for (int i = 0; i < count; ++i) {
      all[static_cast<std::size_t>(i)] = i;
    }
    return all;
  }
  std::vector<int> devices;
  for (const auto& part : split(text)) {
    int ordinal = -1;
    const auto [end, problem] = std::from_chars(part.data(), part.data() + part.size(), ordinal);
    if (part.empty() || problem != std::errc() || end != part.data() + part.size() || ordinal < 0) {
      throw invalid_argument(fmt::format("--devices {}: '{}' is not a device number; give all or "
                                         "device numbers such as 0,2,3 ({}; kerntime info lists "
                                         "them)",
                                         text, part, there));
    }
    if (count >= 0 && ordinal >= count) {
      throw invalid_argument(
          fmt::format("--devices {}: there is no device {} ({})", text, ordinal, there));
    }
    if (std::find(devices.begin(), devices.end(), ordinal) != devices.end()) {
      throw invalid_argument(fmt::format("--devices {}: device {} is named twice; each GPU runs "
                                         "one state at a time, so name it once",
                                         text, ordinal));
    }
    devices.push_back(ordinal);
  }
  return devices;
}

std::string visible_devices_for(int ordinal, const std::optional<std::string>& visible) {
  if (visible) {
    const auto entries = split(*visible);
    if (ordinal >= 0 && static_cast<std::size_t>(ordinal) < entries.size()) {
      return entries[static_cast<std::size_t>(ordinal)];
    }
  }
  return std::to_string(ordinal);
}

std::optional<run_device> read_run_device(int ordinal) {
  int current = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&current) != cudaSuccess ||
      cudaGetDeviceProperties(&props, current) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  return run_device{host_name(), ordinal, props.name, uuid_text(props.uuid)};
}

int count_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

} // namespace kerntime::detail
