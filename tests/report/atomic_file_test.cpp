#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "temp_folder.hpp"

namespace kerntime {
namespace {

namespace fs = std::filesystem;

class atomic_file_test : public ::testing::Test {
protected:
  [[nodiscard]] std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder_), {}));
  }

  testkit::temp_folder temp_{"kerntime_atomic"};
  const fs::path& folder_ = temp_.path();
};

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(atomic_file_test, WritesAndReplaces) {
  const auto path = folder_ / "out.json";
  write_file_atomically(path, [](std::ostream& out) { out << "first"; });
  write_file_atomically(path, [](std::ostream& out) { out << "second"; });
  EXPECT_EQ(read(path), "second");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(atomic_file_test, MissingFolderNamesThePathAndTheFix) {
  const auto path = folder_ / "no_such_folder" / "out.json";
  try {
    write_file_atomically(path, [](std::ostream& out) { out << "x"; });
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot write " + path.string() + ": "), std::string::npos) << message;
    EXPECT_NE(message.find("choose a writable path"), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(entries(), 0u);
}

TEST_F(atomic_file_test, DirectoryPathLeavesNoTemporaryBehind) {
  const auto path = folder_ / "a_directory";
  fs::create_directory(path);
  EXPECT_THROW(write_file_atomically(path, [](std::ostream& out) { out << "x"; }),
               invalid_argument);
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(atomic_file_test, FailingWriterKeepsTheOldFileAndRemovesTheTemporary) {
  const auto path = folder_ / "out.csv";
  write_file_atomically(path, [](std::ostream& out) { out << "old"; });
  EXPECT_THROW(write_file_atomically(path,
                                     [](std::ostream& out) {
                                       out << "partial";
                                       throw std::runtime_error("writer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(read(path), "old");
  EXPECT_EQ(entries(), 1u);
}

} // namespace
} // namespace kerntime
