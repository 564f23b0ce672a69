// The history store on real files in a temporary folder: runs added and read back as series,
// a run added twice refused, a store of a newer kerntime refused, two GPU models kept apart, a
// run that cannot be added whole leaves nothing, and writers in several processes at once all
// land. Then `kerntime history` itself: a state made 2 % slower found at its commit.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/run_cli.hpp"
#include "history/history_store.hpp"
#include "kerntime/errors.hpp"
#include "report/sample_runs.hpp" // tests/report
#include "temp_folder.hpp"

namespace kerntime::detail {
namespace {

namespace fs = std::filesystem;

result_set run_on(const std::string& date, double scale = 1.0, const std::string& gpu = "") {
  result_set set{test::sample_context(), test::sample_runs()};
  set.context.date = date;
  if (!gpu.empty()) {
    set.context.device->name = gpu;
  }
  for (auto& run : set.runs) {
    if (run.result) {
      run.result->latency_ns *= scale;
    }
  }
  return set;
}

std::string error_of(const std::function<void()>& act) {
  try {
    act();
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

class history_store_test : public ::testing::Test {
protected:
  testkit::temp_folder temp_{"kerntime_history"};
  fs::path path_ = temp_.path() / "history.sqlite";
};

TEST_F(history_store_test, RunsAddedReadBackAsEachStatesSeriesOldestFirst) {
  history_store store(path_, true);
  const auto second =
      store.add(run_on("2026-11-02T00:00:00Z", 1.01), {"bbb", "main", {}}, "b.json");
  const auto first = store.add(run_on("2026-11-01T00:00:00Z"), {"aaa", "main", {}}, "a.json");
  EXPECT_EQ(store.run_count(), 2U);
  const auto names = store.series_names();
  ASSERT_FALSE(names.empty());
  const auto& [device, state] = names.front();
  const auto series = store.series({state, device, std::nullopt});
  ASSERT_EQ(series.size(), 2U);
  EXPECT_EQ(series[0].run_id, first); // by date, not by the order added
  EXPECT_EQ(series[1].run_id, second);
  EXPECT_EQ(series[0].commit, "aaa");
  EXPECT_NEAR(series[1].median_ns / series[0].median_ns, 1.01, 1e-12);
  EXPECT_TRUE(store.series({state, device, std::string("other")}).empty());
}

TEST_F(history_store_test, OnePassOverTheStoreReadsTheSameSeriesAsOneQueryEach) {
  history_store store(path_, true);
  for (int i = 0; i < 3; ++i) {
    store.add(run_on(fmt::format("2026-11-0{}T00:00:00Z", 3 - i), 1.0 + i), {}, "r.json");
  }
  store.add(run_on("2026-11-05T00:00:00Z", 1.0, "NVIDIA B200"), {}, "b200.json");
  std::size_t visited = 0;
  store.each_series(std::nullopt, [&](const std::string& device, const std::string& state,
                                      std::vector<series_point> points) {
    const auto one = store.series({state, device, std::nullopt});
    ASSERT_EQ(points.size(), one.size()) << device << " " << state;
    for (std::size_t i = 0; i < one.size(); ++i) {
      EXPECT_EQ(points[i].run_id, one[i].run_id);
      EXPECT_EQ(points[i].median_ns, one[i].median_ns);
      EXPECT_EQ(kernels_of(points[i]), kernels_of(one[i]));
    }
    ++visited;
  });
  EXPECT_EQ(visited, store.series_names().size());
  EXPECT_GT(visited, 2U);
}

TEST_F(history_store_test, ARunAddedTwiceIsRefusedAndTheStoreKeepsOne) {
  history_store store(path_, true);
  store.add(run_on("2026-11-01T00:00:00Z"), {}, "a.json");
  const auto message =
      error_of([&] { store.add(run_on("2026-11-01T00:00:00Z"), {}, "again.json"); });
  EXPECT_NE(message.find("again.json is already in the history store"), std::string::npos)
      << message;
  EXPECT_EQ(store.run_count(), 1U);
}

TEST_F(history_store_test, ARunThatCannotBeAddedWholeLeavesNothing) {
  history_store store(path_, true);
  auto set = run_on("2026-11-01T00:00:00Z");
  set.runs.push_back(set.runs.front()); // the same state twice: its second row is refused
  EXPECT_NE(error_of([&] { store.add(set, {}, "twice.json"); }), "no error");
  EXPECT_EQ(store.run_count(), 0U);
  EXPECT_TRUE(store.series_names().empty());
}

TEST_F(history_store_test, TwoGpuModelsAreKeptApart) {
  history_store store(path_, true);
  store.add(run_on("2026-11-01T00:00:00Z"), {}, "h200.json");
  store.add(run_on("2026-11-02T00:00:00Z", 2.0, "NVIDIA B200"), {}, "b200.json");
  const auto names = store.series_names();
  const auto state = names.front().second;
  EXPECT_EQ(store.series({state, "NVIDIA H200", std::nullopt}).size(), 1U);
  EXPECT_EQ(store.series({state, "NVIDIA B200", std::nullopt}).size(), 1U);
}

TEST_F(history_store_test, AMissingStoreOrOneOfANewerKerntimeIsRefusedWithTheFix) {
  EXPECT_NE(error_of([&] { history_store store(path_, false); }).find("add runs first"),
            std::string::npos);
  { history_store store(path_, true); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const auto message = error_of([&] { history_store store(path_, false); });
  EXPECT_NE(message.find("schema version 99, written by a newer kerntime"), std::string::npos)
      << message;
  const auto text = temp_.path() / "notes.sqlite";
  std::ofstream(text) << "not a database at all, but long enough to look like a header....\n";
  EXPECT_NE(error_of([&] { history_store store(text, false); }).find(text.string()),
            std::string::npos);
}

TEST_F(history_store_test, WritersInSeveralProcessesAtOnceAllLand) {
  { history_store store(path_, true); }
  constexpr int writers = 4;
  constexpr int runs_each = 10;
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int code = 0;
      try {
        history_store store(path_, false);
        for (int i = 0; i < runs_each; ++i) {
          store.add(run_on(fmt::format("2026-11-{:02d}T00:{:02d}:00Z", w + 1, i)), {}, "w.json");
        }
      } catch (...) {
        code = 1;
      }
      _exit(code);
    }
    children.push_back(child);
  }
  for (const pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(history_store(path_, false).run_count(), static_cast<std::size_t>(writers * runs_each));
}

TEST_F(history_store_test, HistoryChangesFindsTheStateMadeSlowerAtItsCommit) {
  {
    history_store store(path_, true);
    for (int i = 0; i < 20; ++i) {
      auto set = run_on(fmt::format("2026-11-{:02d}T00:00:00Z", i + 1),
                        1.0 + 0.001 * ((i * 7) % 5 - 2) / 2);
      if (i >= 14) {
        set.runs.front().result->latency_ns *= 1.03;
      }
      store.add(set, {fmt::format("c{:02d}", i), "main", {}}, "run.json");
    }
  }
  const benchmark_registry registry;
  const auto found = run_cli(registry, {"history", "changes", "--store", path_.string()});
  EXPECT_EQ(found.exit_code, exit_regression) << found.err;
  const auto first_state = test::sample_runs().front().state_name;
  EXPECT_NE(found.out.find(first_state + " **slower**"), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("c13)"), std::string::npos) << found.out; // the last good commit
  EXPECT_NE(found.out.find("c14)"), std::string::npos) << found.out; // the first slower one
  EXPECT_NE(found.out.find("1 change in"), std::string::npos) << found.out;
  const auto shown = run_cli(registry, {"history", "show", "--store", path_.string(), "--filter",
                                        "^" + first_state + "$", "--json", "-"});
  EXPECT_EQ(shown.exit_code, exit_ok) << shown.err;
  EXPECT_NE(shown.out.find("\"commit\": \"c19\""), std::string::npos);
  const auto postgres =
      run_cli(registry, {"history", "show", "--store", "postgresql://db/kerntime"});
  EXPECT_EQ(postgres.exit_code, exit_bad_input);
  EXPECT_NE(postgres.err.find("PostgreSQL stores are not supported yet"), std::string::npos);
}

} // namespace
} // namespace kerntime::detail
