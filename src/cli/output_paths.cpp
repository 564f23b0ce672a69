#include "cli/output_paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "cli/input_text.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

namespace fs = std::filesystem;

// A name the file system takes: at most NAME_MAX bytes per name (the temporary file adds its
// suffix to it) and PATH_MAX in all.
constexpr std::size_t temporary_suffix_bytes = 32;

void check_name_length(const output_path& o) {
  const std::string name = o.path.filename().string();
  if (name.size() + temporary_suffix_bytes > NAME_MAX) {
    throw invalid_argument(fmt::format(
        "{} {}: the file name is {} bytes long, and names here hold at most {} (with room for "
        "kerntime's temporary file); choose a shorter name",
        o.flag, quoted_input(o.path.string()), name.size(), NAME_MAX - temporary_suffix_bytes));
  }
  if (o.path.string().size() >= PATH_MAX) {
    throw invalid_argument(fmt::format("{} {}: the path is {} bytes long, at most {} are allowed",
                                       o.flag, quoted_input(o.path.string()),
                                       o.path.string().size(), PATH_MAX - 1));
  }
}

// The report is written as a temporary file next to the target, then renamed: create one and
// remove it now, so a folder that refuses files (/proc, a read-only mount) fails before the run.
void check_can_create(const output_path& o, const fs::path& folder) {
  const fs::path probe =
      folder / fmt::format(".{}.kerntime-check.{}", o.path.filename().string(), ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw invalid_argument(fmt::format("{} {}: cannot create a file in {} ({}); choose a "
                                       "writable folder",
                                       o.flag, quoted_input(o.path.string()),
                                       quoted_input(folder.string()), std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void check_one(const output_path& o) {
  if (o.path.empty()) {
    throw invalid_argument(
        fmt::format("{} needs a file name, e.g. {} results.out", o.flag, o.flag));
  }
  check_name_length(o);
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
  check_can_create(o, folder);
}

// Where the file will really be: the parent folder resolved (symbolic links, "..", "./"), then
// the name. Two flags whose files resolve alike write the same file.
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path real_folder = fs::canonical(folder, ec);
  fs::path target = (ec ? fs::absolute(folder, ec) : real_folder) / path.filename();
  // The file itself may be a symbolic link to another report's file.
  if (fs::is_symlink(target, ec)) {
    const fs::path real = fs::weakly_canonical(target, ec);
    if (!ec) {
      target = real;
    }
  }
  return target.lexically_normal();
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return resolved(a) == resolved(b) || fs::equivalent(a, b, ec);
}

} // namespace

void check_output_paths(const std::vector<output_path>& outputs,
                        const std::vector<input_path>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (const auto& input : inputs) {
      if (!outputs[i].path.empty() && same_file(outputs[i].path, input.path)) {
        throw invalid_argument(fmt::format(
            "{} {} would replace {} ({}), which this command reads; write the report to "
            "another file",
            outputs[i].flag, quoted_input(outputs[i].path.string()),
            quoted_input(input.path.string()), input.role));
      }
    }
    check_one(outputs[i]);
    for (std::size_t j = 0; j < i; ++j) {
      if (same_file(outputs[i].path, outputs[j].path)) {
        throw invalid_argument(fmt::format("{} and {} both write {}; give each its own file",
                                           outputs[j].flag, outputs[i].flag,
                                           outputs[i].path.string()));
      }
    }
  }
}

junit_family junit_family_flag(const std::string& text, bool junit_requested) {
  const auto family = parse_junit_family(text);
  if (!family) {
    throw invalid_argument(fmt::format("--junit-family {} is not a JUnit flavour; pass "
                                       "--junit-family xunit1 or --junit-family xunit2",
                                       quoted_input(text)));
  }
  if (*family != junit_family::xunit1 && !junit_requested) {
    throw invalid_argument("--junit-family applies to the --junit file; add --junit FILE");
  }
  return *family;
}

} // namespace kerntime::detail
