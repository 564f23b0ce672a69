#pragma once
// Files kerntime writes and reads, plain or gzip-compressed (zlib). A name that ends in ".gz" is
// written compressed; reading takes either, whatever the name (zlib reads a plain file as it is).

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace kerntime::detail {

[[nodiscard]] bool names_gzip(const std::filesystem::path& path);

// An ostream that writes `path` gzip-compressed. close() finishes the stream and says whether
// every byte was written; the destructor closes without saying.
class gzip_ostream : public std::ostream {
public:
  explicit gzip_ostream(const std::filesystem::path& path);
  ~gzip_ostream() override;
  gzip_ostream(const gzip_ostream&) = delete;
  gzip_ostream& operator=(const gzip_ostream&) = delete;
  [[nodiscard]] bool close();

private:
  class buffer;
  std::unique_ptr<buffer> buffer_;
};

// A file read line by line through a buffer of its own, so a file of any size is read in the
// memory of its longest line. Throws kerntime::invalid_argument naming the file when it cannot be
// opened or read (a damaged gzip stream included).
class line_reader {
public:
  explicit line_reader(const std::filesystem::path& path);
  ~line_reader();
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;

  // The next line, without its line break, valid until the next call; false at the end.
  [[nodiscard]] bool next(std::string_view& line);
  // The rest of the file, from where reading stands.
  [[nodiscard]] std::string rest();

private:
  void fill();
  std::filesystem::path path_;
  void* file_ = nullptr; // gzFile
  std::string buffer_;
  std::size_t begin_ = 0; // the unread bytes are buffer_[begin_, buffer_.size())
  bool end_ = false;
};

} // namespace kerntime::detail
