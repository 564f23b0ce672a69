// gzip_file.hpp where kerntime was built without zlib (the Python module built by pip on a
// machine without zlib1g-dev, CMakeLists.txt): a ".gz" name is refused with the reason and the
// fix, and nothing reads result files in such a build (result_reader.cpp is left out with it).

#include "report/detail/gzip_file.hpp"

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// The path may be a temporary file beside the one named (atomic_file.cpp): only the kind is said.
[[noreturn]] void refuse(std::string_view doing) {
  throw invalid_argument(fmt::format("cannot {} a .gz file: this kerntime was built without "
                                     "zlib; install zlib1g-dev (and libsimdjson-dev to read "
                                     "results) and rebuild it, or name a file without .gz",
                                     doing));
}

} // namespace

bool names_gzip(const std::filesystem::path& path) {
  return path.extension() == ".gz";
}

class gzip_ostream::buffer {};

gzip_ostream::gzip_ostream(const std::filesystem::path& /*path*/) : std::ostream(nullptr) {
  refuse("write");
}

gzip_ostream::~gzip_ostream() = default;

bool gzip_ostream::close() {
  return false;
}

line_reader::line_reader(const std::filesystem::path& path) : path_(path) {
  refuse("read");
}

line_reader::~line_reader() = default;

bool line_reader::next(std::string_view& /*line*/) {
  return false;
}

std::string line_reader::rest() {
  return {};
}

void line_reader::fill() {}

} // namespace kerntime::detail
