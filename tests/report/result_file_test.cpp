// Result files as they lie on disk: the layout kerntime writes (one state per line, read a line
// at a time) and any other layout of the same JSON (read whole) give the same result; FILE.gz is
// written compressed and read back whatever its name; a damaged file is refused naming the file
// and what is wrong, never read in part.

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "render.hpp"
#include "temp_folder.hpp"

namespace kerntime::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string rewritten(const result_set& set) {
  std::ostringstream out;
  make_json_writer()->print(out, set.context, set.runs);
  return out.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string refusal(const fs::path& path) {
  try {
    static_cast<void>(read_result_set(path));
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "read without complaint";
}

class result_file_test : public ::testing::Test {
protected:
  testkit::temp_folder temp_{"kerntime_result_file"};
  const fs::path& folder_ = temp_.path();
  const std::string written_ = render(*make_json_writer());
};

TEST_F(result_file_test, EveryLayoutOfTheSameJsonReadsTheSame) {
  const auto path = folder_ / "lines.json";
  write_text(path, written_);
  EXPECT_EQ(rewritten(read_result_set(path)), written_);
  for (const int indent : {-1, 0, 2}) { // one line, line breaks only, indented (earlier versions)
    const auto other = folder_ / "other.json";
    write_text(other, json::parse(written_).dump(indent));
    EXPECT_EQ(rewritten(read_result_set(other)), written_) << "indent " << indent;
    EXPECT_EQ(rewritten(parse_result_set(json::parse(written_).dump(indent), "other.json")),
              written_);
  }
}

TEST_F(result_file_test, AnEmptyRunListAndWindowsLineBreaksRead) {
  std::ostringstream empty;
  make_json_writer()->print(empty, sample_context(), {});
  EXPECT_TRUE(parse_result_set(empty.str(), "empty.json").runs.empty());
  std::string crlf;
  for (const char c : written_) {
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  }
  EXPECT_EQ(rewritten(parse_result_set(crlf, "crlf.json")), written_);
}

TEST_F(result_file_test, AReaderThatNeedsNoTraceLeavesOnlyTheTraceOut) {
  const auto path = folder_ / "lines.json";
  write_text(path, written_);
  auto without = read_result_set(path, {.trace = false});
  auto with = read_result_set(path);
  ASSERT_EQ(without.runs.size(), with.runs.size());
  std::size_t traced = 0;
  for (std::size_t i = 0; i < with.runs.size(); ++i) {
    if (with.runs[i].result) {
      traced += with.runs[i].result->trace.size();
      EXPECT_TRUE(without.runs[i].result->trace.empty());
      with.runs[i].result->trace.clear();
    }
  }
  EXPECT_GT(traced, 0U);
  EXPECT_EQ(rewritten(without), rewritten(with)); // nothing else differs
}

TEST_F(result_file_test, AGzipFileIsWrittenCompressedAndReadWhateverItsName) {
  const auto path = folder_ / "suite.json.gz";
  write_file_atomically(path, [this](std::ostream& out) { out << written_; });
  std::ifstream in(path, std::ios::binary);
  const int first = in.get();
  const int second = in.get();
  EXPECT_EQ(first, 0x1f); // the gzip magic
  EXPECT_EQ(second, 0x8b);
  EXPECT_LT(fs::file_size(path), written_.size() / 3);
  EXPECT_EQ(rewritten(read_result_set(path)), written_);
  fs::rename(path, folder_ / "renamed.json");
  EXPECT_EQ(rewritten(read_result_set(folder_ / "renamed.json")), written_);
}

TEST_F(result_file_test, ACutFileIsRefusedNotReadInPart) {
  const auto path = folder_ / "cut.json";
  const auto cut = written_.substr(0, written_.rfind("\n{") + 1); // the last state and the end lost
  write_text(path, cut);
  const auto message = refusal(path);
  EXPECT_NE(message.find(path.string() + " is not a kerntime result set: not JSON"),
            std::string::npos)
      << message;
}

TEST_F(result_file_test, ACutGzipStreamIsRefused) {
  const auto path = folder_ / "cut.json.gz";
  write_file_atomically(path, [this](std::ostream& out) { out << written_; });
  fs::resize_file(path, fs::file_size(path) / 2);
  const auto message = refusal(path);
  EXPECT_NE(message.find(path.string() + " is not a kerntime result set"), std::string::npos)
      << message;
}

TEST_F(result_file_test, ABrokenStateLineIsNamedByItsLine) {
  auto lines = written_;
  const auto fourth = lines.find("\n{\"benchmark\"", lines.find("\n{\"benchmark\"") + 1);
  lines.insert(fourth + 2, "}");
  const auto message = [&] {
    try {
      static_cast<void>(parse_result_set(lines, "broken.json"));
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("read without complaint");
  }();
  EXPECT_NE(message.find("broken.json is not a kerntime result set: not JSON"), std::string::npos)
      << message;
}

TEST_F(result_file_test, AMissingFileIsNamedWithTheFix) {
  const auto message = refusal(folder_ / "absent.json");
  EXPECT_NE(message.find("cannot read " + (folder_ / "absent.json").string()), std::string::npos)
      << message;
  EXPECT_NE(message.find("kerntime run --json FILE"), std::string::npos) << message;
}

TEST_F(result_file_test, ATraceRecordOfTheWrongShapeIsRefused) {
  auto document = json::parse(written_);
  auto& records = document.at("runs").at(0).at("result").at("trace").at("records");
  records.at(0).erase(4);
  EXPECT_NE(refusal([&] {
              const auto path = folder_ / "short.json";
              write_text(path, document.dump());
              return path;
            }())
                .find("a trace record holds 4 values, not 5"),
            std::string::npos);
  records.at(0).push_back(1.0);
  records.at(0).at(0) = 99;
  const auto path = folder_ / "index.json";
  write_text(path, document.dump());
  EXPECT_NE(refusal(path).find("trace kernel 99 is out of range"), std::string::npos)
      << refusal(path);
}

TEST_F(result_file_test, ATraceWrittenRecordByRecordStillReads) {
  auto document = json::parse(written_);
  for (auto& run : document.at("runs")) {
    if (run.at("result").is_null()) {
      continue;
    }
    auto& trace = run.at("result").at("trace");
    json records = json::array();
    for (const auto& row : trace.at("records")) {
      const auto& kernel = trace.at("kernels").at(row.at(0).get<std::size_t>());
      records.push_back({{"name", kernel.at("name")},
                         {"kind", kernel.at("kind")},
                         {"iteration", row.at(1)},
                         {"stream", row.at(2)},
                         {"start_ns", row.at(3)},
                         {"end_ns", row.at(4)}});
    }
    trace = records; // as files before 2026-12-04 hold it
  }
  EXPECT_EQ(rewritten(parse_result_set(document.dump(2), "old.json")), written_);
}

} // namespace
} // namespace kerntime::test
