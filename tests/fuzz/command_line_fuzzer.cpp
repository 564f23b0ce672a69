// Fuzzes the whole kerntime command line: the input's lines (or NUL-separated words) are the
// arguments of `kerntime`, run in-process over a small registry whose benchmarks never touch the
// GPU, with a device check that always says "no device", so `run` stops once its input is
// checked. Every exit code is fine; a crash, a sanitizer report, a leak, a hang or an exception
// escaping the command is a finding.
//
// The command runs in a working folder of its own holding two kerntime JSON files (for compare
// and --baseline); whatever an input writes there is removed before the next one. Paths cannot
// leave that folder: a leading '/' and '..' components are rewritten to stay inside it.

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/command_line.hpp"

namespace {

namespace fs = std::filesystem;

kerntime::benchmark_registry make_registry() {
  kerntime::benchmark_registry registry;
  const auto skip = [](kerntime::state& s) { s.skip("fuzzing: never measured"); };
  registry.add("alpha", skip).add_int_axis("N", {1, 2}).add_string_axis("mode", {"x", "y"});
  registry.add("beta", skip)
      .add_int_power_of_two_axis("bytes", 10, 12, 2)
      .add_float_axis("f", {0.5});
  registry.add("gamma", skip).add_type_axis("T", {"float", "double"});
  registry.add("plain", skip);
  return registry;
}

// The working folder: the kerntime JSON files of tests/fuzz/data under the names a command line
// uses, put back as they were after every input.
class sandbox {
public:
  sandbox() {
    std::string pattern = (fs::temp_directory_path() / "kerntime_fuzz_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    root_ = pattern;
    fs::current_path(root_);
    for (const auto& [name, source] :
         std::map<std::string, std::string>{{"base.json", "base.json"},
                                            {"new.json", "new.json"},
                                            {"history/1.json", "base.json"},
                                            {"history/2.json", "new.json"}}) {
      std::ifstream in(fs::path(KERNTIME_FUZZ_DATA_DIR) / source, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      fixtures_[name] = text.str();
    }
    restore();
  }
  ~sandbox() {
    std::error_code ignored;
    fs::current_path(root_.parent_path(), ignored);
    fs::remove_all(root_, ignored);
  }
  sandbox(const sandbox&) = delete;
  sandbox& operator=(const sandbox&) = delete;

  // Back to the fixtures alone, unchanged: cheap when the input wrote nothing.
  void restore() {
    if (!changed()) {
      return;
    }
    fs::current_path(root_);
    for (const auto& entry : fs::directory_iterator(root_)) {
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add);
      fs::remove_all(entry.path());
    }
    stamps_.clear();
    for (const auto& [name, text] : fixtures_) {
      const fs::path path = root_ / name;
      fs::create_directories(path.parent_path());
      std::ofstream(path, std::ios::binary) << text;
      stamps_[path] = fs::last_write_time(path);
    }
  }

private:
  [[nodiscard]] bool changed() const {
    std::error_code ec;
    if (stamps_.empty() || fs::current_path(ec) != root_) {
      return true;
    }
    std::size_t entries = 0;
    for (auto it = fs::recursive_directory_iterator(root_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) {
        const auto stamp = stamps_.find(it->path());
        if (stamp == stamps_.end() || it->last_write_time(ec) != stamp->second) {
          return true;
        }
      } else if (it->path().filename() != "history") {
        return true;
      }
      ++entries;
    }
    return ec || entries != stamps_.size() + 1; // the fixtures and the history folder
  }

  fs::path root_;
  std::map<std::string, std::string> fixtures_;
  std::map<fs::path, fs::file_time_type> stamps_;
};

// A word as a path stays inside the working folder: "/x" reads as "./x", "--json=/x" as
// "--json=./x", "a/../b" as "a/./b".
std::string confined(std::string word) {
  for (std::size_t at = 0; at < word.size(); ++at) {
    if ((word[at] == '/' || word[at] == '~') && (at == 0 || word[at - 1] == '=')) {
      word.insert(at, ".");
      ++at;
    }
  }
  for (auto at = word.find(".."); at != std::string::npos; at = word.find("..", at)) {
    const bool starts_component = at == 0 || word[at - 1] == '/' || word[at - 1] == '=';
    const bool ends_component = at + 2 == word.size() || word[at + 2] == '/';
    if (starts_component && ends_component) {
      word.erase(at, 1);
    } else {
      at += 2;
    }
  }
  return word;
}

// "kerntime" and the input's words. `info` is left out: it asks the CUDA driver for devices.
std::vector<std::string> arguments(std::string_view input) {
  std::vector<std::string> args{"kerntime"};
  std::size_t start = 0;
  while (start <= input.size()) {
    const auto end =
        std::min(input.find_first_of(std::string_view("\n\0", 2), start), input.size());
    std::string word = confined(std::string(input.substr(start, end - start)));
    if (word != "info") {
      args.push_back(std::move(word));
    }
    start = end + 1;
  }
  return args;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kerntime::benchmark_registry registry = make_registry();
  static sandbox folder;
  std::ostringstream out;
  std::ostringstream err;
  kerntime::detail::cli_environment env;
  env.out = &out;
  env.err = &err;
  env.find_device_problem = [] {
    return std::optional<std::string>("no CUDA device (fuzzing: nothing is measured)");
  };
  const auto args = arguments(std::string_view(reinterpret_cast<const char*>(data), size));
  static_cast<void>(kerntime::detail::run_command_line(args, registry, env));
  folder.restore();
  return 0;
}
