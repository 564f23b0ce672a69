#include "report/detail/gzip_file.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <streambuf>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

gzFile open_gzip(const std::filesystem::path& path, const char* mode) {
  gzFile file = gzopen(path.c_str(), mode);
  if (file != nullptr) {
    gzbuffer(file, static_cast<unsigned>(chunk_bytes));
  }
  return file;
}

std::string gzip_error(gzFile file) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  if (code == Z_ERRNO) {
    return std::strerror(errno);
  }
  return text != nullptr && *text != '\0' ? text : "unknown zlib error";
}

} // namespace

bool names_gzip(const std::filesystem::path& path) {
  return path.extension() == ".gz";
}

class gzip_ostream::buffer final : public std::streambuf {
public:
  explicit buffer(const std::filesystem::path& path) : file_(open_gzip(path, "wb6")) {
    setp(bytes_.data(), bytes_.data() + bytes_.size());
  }
  ~buffer() override { (void)close(); }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  [[nodiscard]] bool opened() const { return file_ != nullptr; }
  bool close() {
    if (file_ == nullptr) {
      return ok_;
    }
    ok_ = flush_bytes() && ok_;
    ok_ = gzclose(file_) == Z_OK && ok_;
    file_ = nullptr;
    return ok_;
  }

protected:
  int_type overflow(int_type c) override {
    if (!flush_bytes()) {
      return traits_type::eof();
    }
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flush_bytes() ? 0 : -1; }

private:
  bool flush_bytes() {
    const auto count = static_cast<unsigned>(pptr() - pbase());
    if (count > 0 &&
        (file_ == nullptr || gzwrite(file_, pbase(), count) != static_cast<int>(count))) {
      ok_ = false;
      return false;
    }
    setp(bytes_.data(), bytes_.data() + bytes_.size());
    return true;
  }

  gzFile file_;
  bool ok_ = true;
  std::array<char, 1 << 16> bytes_{};
};

gzip_ostream::gzip_ostream(const std::filesystem::path& path)
    : std::ostream(nullptr), buffer_(std::make_unique<buffer>(path)) {
  rdbuf(buffer_.get());
  if (!buffer_->opened()) {
    setstate(std::ios::badbit);
  }
}

gzip_ostream::~gzip_ostream() = default;

bool gzip_ostream::close() {
  flush();
  return buffer_->close() && !fail();
}

line_reader::line_reader(const std::filesystem::path& path)
    : path_(path), file_(open_gzip(path, "rb")) {
  if (file_ == nullptr) {
    const int why = errno;
    throw invalid_argument(fmt::format(
        "cannot read {}: {}; give the path of a kerntime JSON (kerntime run --json FILE)",
        path.string(), why == ENOENT ? "no such file" : std::strerror(why)));
  }
}

line_reader::~line_reader() {
  gzclose(static_cast<gzFile>(file_));
}

void line_reader::fill() {
  buffer_.erase(0, begin_);
  begin_ = 0;
  const std::size_t kept = buffer_.size();
  buffer_.resize(kept + chunk_bytes);
  const int read =
      gzread(static_cast<gzFile>(file_), buffer_.data() + kept, static_cast<unsigned>(chunk_bytes));
  if (read < 0) {
    throw invalid_argument(
        fmt::format("cannot read {}: {}", path_.string(), gzip_error(static_cast<gzFile>(file_))));
  }
  buffer_.resize(kept + static_cast<std::size_t>(read));
  end_ = read == 0;
}

bool line_reader::next(std::string_view& line) {
  std::size_t searched = begin_;
  for (;;) {
    const std::size_t newline = buffer_.find('\n', searched);
    if (newline != std::string::npos) {
      line = std::string_view(buffer_).substr(begin_, newline - begin_);
      begin_ = newline + 1;
      return true;
    }
    if (end_) {
      if (begin_ == buffer_.size()) {
        return false;
      }
      line = std::string_view(buffer_).substr(begin_);
      begin_ = buffer_.size();
      return true;
    }
    searched = buffer_.size() - begin_; // fill() moves the unread bytes to the front
    fill();
  }
}

std::string line_reader::rest() {
  while (!end_) {
    fill();
  }
  std::string text = buffer_.substr(begin_);
  begin_ = buffer_.size();
  return text;
}

} // namespace kerntime::detail
