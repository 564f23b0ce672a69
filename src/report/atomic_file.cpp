#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "report/detail/gzip_file.hpp"

namespace kerntime {
namespace {

[[noreturn]] void cannot_write(const std::filesystem::path& path, std::string_view reason) {
  throw invalid_argument(
      fmt::format("cannot write {}: {}; choose a writable path", path.string(), reason));
}

// A name no other writer (thread or process) uses at the same time, in the target's folder so
// that the final rename stays within one file system and is atomic.
std::filesystem::path create_temporary_next_to(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate = folder / fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(),
                                          counter.fetch_add(1));
    // O_EXCL: never truncate somebody else's file; 0666 lets the umask decide, as for any file.
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return candidate;
    }
    if (errno != EEXIST) {
      cannot_write(path, std::strerror(errno));
    }
  }
  cannot_write(path, "no free temporary file name next to it");
}

} // namespace

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  if (path.empty()) {
    throw invalid_argument("cannot write an empty path; choose a writable path");
  }
  const auto temporary = create_temporary_next_to(path);
  auto discard = [&] {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
  };
  try {
    if (detail::names_gzip(path)) { // FILE.gz: written gzip-compressed
      detail::gzip_ostream out(temporary);
      if (!out) {
        cannot_write(path, std::strerror(errno));
      }
      write(out);
      if (!out.close()) {
        cannot_write(path, "writing the temporary file failed (disk full?)");
      }
    } else {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      if (!out) {
        cannot_write(path, std::strerror(errno));
      }
      write(out);
      out.flush();
      out.close();
      if (out.fail()) {
        cannot_write(path, "writing the temporary file failed (disk full?)");
      }
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
      cannot_write(path, error.message());
    }
  } catch (...) {
    discard();
    throw;
  }
}

} // namespace kerntime
