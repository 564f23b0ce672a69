#include "cli/output_paths.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

void check_one(const output_path& o) {
  namespace fs = std::filesystem;
  if (o.path.empty()) {
    throw invalid_argument(
        fmt::format("{} needs a file name, e.g. {} results.out", o.flag, o.flag));
  }
  std::error_code ec;
  if (fs::is_directory(o.path, ec)) {
    throw invalid_argument(fmt::format("{} {} is a folder; give a file name inside it, e.g. {} "
                                       "{}",
                                       o.flag, o.path.string(), o.flag,
                                       (o.path / "results.out").string()));
  }
  const fs::path folder = o.path.has_parent_path() ? o.path.parent_path() : fs::path(".");
  if (!fs::exists(folder, ec)) {
    throw invalid_argument(fmt::format("{} {}: the folder {} does not exist; create it (mkdir -p "
                                       "{}) or choose another path",
                                       o.flag, o.path.string(), folder.string(), folder.string()));
  }
  if (!fs::is_directory(folder, ec)) {
    throw invalid_argument(fmt::format("{} {}: {} is not a folder; choose a path inside a folder",
                                       o.flag, o.path.string(), folder.string()));
  }
  // The file is written as a temporary next to it, then renamed: the folder must be writable.
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw invalid_argument(fmt::format("{} {}: the folder {} is not writable; choose a writable "
                                       "folder",
                                       o.flag, o.path.string(), folder.string()));
  }
  if (fs::exists(o.path, ec) && !fs::is_regular_file(o.path, ec)) {
    throw invalid_argument(fmt::format("{} {} exists and is not a regular file; choose another "
                                       "path",
                                       o.flag, o.path.string()));
  }
}

} // namespace

void check_output_paths(const std::vector<output_path>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    check_one(outputs[i]);
    for (std::size_t j = 0; j < i; ++j) {
      std::error_code ec;
      const bool same = outputs[i].path.lexically_normal() == outputs[j].path.lexically_normal() ||
                        std::filesystem::equivalent(outputs[i].path, outputs[j].path, ec);
      if (same) {
        throw invalid_argument(fmt::format("{} and {} both write {}; give each its own file",
                                           outputs[j].flag, outputs[i].flag,
                                           outputs[i].path.string()));
      }
    }
  }
}

} // namespace kerntime::detail
