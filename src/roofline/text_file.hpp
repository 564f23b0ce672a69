#pragma once
// A whole text file read for a flag (--peaks, --calibration), or an error naming flag and path.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {

inline std::string read_text_file(const std::filesystem::path& path, std::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) {
    throw invalid_argument(fmt::format("{} {}: cannot read the file; give the path of a "
                                       "readable file",
                                       flag, path.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace kerntime::detail
