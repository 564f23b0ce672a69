// The history store on both databases: a SQLite file in a temporary folder, and a fresh database
// on a real PostgreSQL server (postgres_server.sh, started by ctest; skipped, saying why, where it
// cannot start). Runs added and read back as series, a run added twice refused, a store of a
// newer kerntime refused, an older one migrated, two GPU models kept apart, a run that cannot be
// added whole leaves nothing, writers in several processes at once all land. Then `kerntime
// history` itself: a state made 2 % slower found at its commit, and a baseline of the newest runs
// that compare reads as several base runs.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "history/history_store.hpp"
#include "history/postgres_database.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/errors.hpp"
#include "report/sample_runs.hpp" // tests/report
#include "supervise/exit_codes.hpp"
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

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Each test gets a store of its own: a new SQLite file, or a new database on the test server.
class history_store_test : public ::testing::TestWithParam<history_database::kind> {
protected:
  void SetUp() override {
    if (GetParam() == history_database::kind::sqlite) {
      path_ = (temp_.path() / "history.sqlite").string();
      return;
    }
    const char* folder = std::getenv("KERNTIME_TEST_POSTGRES");
    if (folder == nullptr) {
      GTEST_SKIP() << "no PostgreSQL server: run this test through ctest, which starts one "
                      "(tests/history/postgres_server.sh)";
    }
    server_ = file_text(fs::path(folder) / "url");
    if (server_.empty()) {
      GTEST_SKIP() << "no PostgreSQL server: " << file_text(fs::path(folder) / "why");
    }
    server_.erase(server_.find_last_not_of('\n') + 1);
    database_ = fmt::format("kerntime_test_{}", getpid());
    open_postgres_database(server_)->execute("DROP DATABASE IF EXISTS " + database_);
    open_postgres_database(server_)->execute("CREATE DATABASE " + database_);
    path_ = server_;
    path_.replace(path_.find("/postgres?"), 9, "/" + database_);
  }
  void TearDown() override {
    if (!database_.empty()) {
      open_postgres_database(server_)->execute(
          fmt::format("DROP DATABASE IF EXISTS {} WITH (FORCE)", database_));
    }
  }

  testkit::temp_folder temp_{"kerntime_history"};
  std::string path_; // the --store value
  std::string server_;
  std::string database_;
};

INSTANTIATE_TEST_SUITE_P(OnEachDatabase, history_store_test,
                         ::testing::Values(history_database::kind::sqlite,
                                           history_database::kind::postgresql),
                         [](const ::testing::TestParamInfo<history_database::kind>& info) {
                           return info.param == history_database::kind::sqlite ? "sqlite"
                                                                               : "postgresql";
                         });

TEST_P(history_store_test, RunsAddedReadBackAsEachStatesSeriesOldestFirst) {
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

TEST_P(history_store_test, OnePassOverTheStoreReadsTheSameSeriesAsOneQueryEach) {
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
      EXPECT_EQ(points[i].sm_clock_mhz, one[i].sm_clock_mhz);
    }
    ++visited;
  });
  EXPECT_EQ(visited, store.series_names().size());
  EXPECT_GT(visited, 2U);
}

TEST_P(history_store_test, ARunAddedTwiceIsRefusedAndTheStoreKeepsOne) {
  history_store store(path_, true);
  store.add(run_on("2026-11-01T00:00:00Z"), {}, "a.json");
  const auto message =
      error_of([&] { store.add(run_on("2026-11-01T00:00:00Z"), {}, "again.json"); });
  EXPECT_NE(message.find("again.json is already in the history store"), std::string::npos)
      << message;
  EXPECT_EQ(store.run_count(), 1U);
}

TEST_P(history_store_test, ARunThatCannotBeAddedWholeLeavesNothing) {
  history_store store(path_, true);
  auto set = run_on("2026-11-01T00:00:00Z");
  set.runs.push_back(set.runs.front()); // the same state twice: its second row is refused
  EXPECT_NE(error_of([&] { store.add(set, {}, "twice.json"); }), "no error");
  EXPECT_EQ(store.run_count(), 0U);
  EXPECT_TRUE(store.series_names().empty());
}

TEST_P(history_store_test, TwoGpuModelsAreKeptApart) {
  history_store store(path_, true);
  store.add(run_on("2026-11-01T00:00:00Z"), {}, "h200.json");
  store.add(run_on("2026-11-02T00:00:00Z", 2.0, "NVIDIA B200"), {}, "b200.json");
  const auto names = store.series_names();
  const auto state = names.front().second;
  EXPECT_EQ(store.series({state, "NVIDIA H200", std::nullopt}).size(), 1U);
  EXPECT_EQ(store.series({state, "NVIDIA B200", std::nullopt}).size(), 1U);
}

TEST_P(history_store_test, AMissingStoreOrOneOfANewerKerntimeIsRefusedWithTheFix) {
  EXPECT_NE(error_of([&] { history_store store(path_, false); }).find("add runs first"),
            std::string::npos);
  { history_store store(path_, true); }
  open_history_database(path_, false)->set_schema_version(99);
  const auto message = error_of([&] { history_store store(path_, false); });
  EXPECT_NE(message.find("schema version 99, written by a newer kerntime"), std::string::npos)
      << message;
  if (GetParam() == history_database::kind::sqlite) {
    const auto text = temp_.path() / "notes.sqlite";
    std::ofstream(text) << "not a database at all, but long enough to look like a header....\n";
    EXPECT_NE(error_of([&] { history_store store(text.string(), false); }).find(text.string()),
              std::string::npos);
  }
}

TEST_P(history_store_test, AStoreOfTheFirstSchemaIsMigratedAndItsRunsStillRead) {
  {
    history_store store(path_, true);
    store.add(run_on("2026-11-01T00:00:00Z"), {"old", "main", {}}, "old.json");
  }
  { // as kerntime wrote it before it kept results
    const auto db = open_history_database(path_, false);
    db->execute("DROP TABLE results");
    db->set_schema_version(1);
  }
  history_store store(path_, false);
  const auto added = store.add(run_on("2026-11-02T00:00:00Z"), {"new", "main", {}}, "new.json");
  const auto names = store.series_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(store.series({names.front().second, names.front().first, std::nullopt}).size(), 2U);
  const auto runs = store.last_runs("NVIDIA H200", std::nullopt, 5);
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_FALSE(store.results_of(runs.front().id).has_value()); // kept no result then
  const auto results = store.results_of(added);
  ASSERT_TRUE(results.has_value());
  EXPECT_EQ(results->size(), test::sample_runs().size());
}

TEST_P(history_store_test, WritersInSeveralProcessesAtOnceAllLand) {
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

TEST_P(history_store_test, HistoryChangesFindsTheStateMadeSlowerAtItsCommit) {
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
  const auto found = run_cli(registry, {"history", "changes", "--store", path_});
  EXPECT_EQ(found.exit_code, exit_regression) << found.err;
  const auto first_state = test::sample_runs().front().state_name;
  EXPECT_NE(found.out.find(first_state + " **slower**"), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("c13)"), std::string::npos) << found.out; // the last good commit
  EXPECT_NE(found.out.find("c14)"), std::string::npos) << found.out; // the first slower one
  EXPECT_NE(found.out.find("1 change in"), std::string::npos) << found.out;
  const auto shown = run_cli(registry, {"history", "show", "--store", path_, "--filter",
                                        "^" + first_state + "$", "--json", "-"});
  EXPECT_EQ(shown.exit_code, exit_ok) << shown.err;
  EXPECT_NE(shown.out.find("\"commit\": \"c19\""), std::string::npos);
}

TEST_P(history_store_test, ABaselineOfTheNewestRunsIsReadByCompareAsSeveralBaseRuns) {
  {
    history_store store(path_, true);
    for (int i = 0; i < 4; ++i) {
      store.add(run_on(fmt::format("2026-11-0{}T00:00:00Z", i + 1)),
                {fmt::format("c{}", i), i == 0 ? "other" : "main", {}}, "run.json");
    }
  }
  const benchmark_registry registry;
  const auto file = temp_.path() / "base.json";
  const auto made = run_cli(registry, {"history", "baseline", "--store", path_, "--branch", "main",
                                       "--last", "5", "--json", file.string()});
  ASSERT_EQ(made.exit_code, exit_ok) << made.err;
  EXPECT_NE(made.out.find("a baseline of 3 runs of NVIDIA H200 on branch main"), std::string::npos)
      << made.out;
  const auto base = read_result_set(file);
  const auto states = test::sample_runs();
  EXPECT_EQ(base.runs.size(), 3 * states.size());
  // One new run against the three: intervals over runs, the base runs' spread in them.
  const std::vector<result_set> base_side{base};
  const std::vector<result_set> new_side{run_on("2026-11-09T00:00:00Z")};
  const auto c = compare(base_side, new_side, {});
  ASSERT_FALSE(c.states.empty());
  EXPECT_EQ(c.states.front().unit, "runs");
  EXPECT_EQ(c.states.front().base_units, 3);
  EXPECT_EQ(c.states.front().new_units, 1);

  const auto too_few = run_cli(
      registry, {"history", "baseline", "--store", path_, "--last", "1", "--json", file.string()});
  EXPECT_EQ(too_few.exit_code, exit_bad_input);
  EXPECT_NE(too_few.err.find("at least 2 runs"), std::string::npos) << too_few.err;
  const auto no_json = run_cli(registry, {"history", "baseline", "--store", path_});
  EXPECT_EQ(no_json.exit_code, exit_bad_input);
  EXPECT_NE(no_json.err.find("--json FILE"), std::string::npos) << no_json.err;
  const auto one_run = run_cli(registry, {"history", "baseline", "--store", path_, "--branch",
                                          "other", "--json", file.string()});
  EXPECT_EQ(one_run.exit_code, exit_bad_input);
  EXPECT_NE(one_run.err.find("1 run of NVIDIA H200 on branch other"), std::string::npos)
      << one_run.err;
}

TEST_P(history_store_test, AWriterThatWaitsTooLongIsToldAnotherWriterHeldTheStore) {
  { history_store store(path_, true); }
  const auto holder = open_history_database(path_, false);
  const auto waiter = open_history_database(path_, false);
  // A minute in kerntime; not in a test.
  waiter->execute(GetParam() == history_database::kind::sqlite ? "PRAGMA busy_timeout = 200"
                                                               : "SET lock_timeout = '200ms'");
  holder->begin_writing();
  const auto message = error_of([&] { waiter->begin_writing(); });
  holder->rollback();
  EXPECT_NE(message.find("another writer held the store for more than a minute"), std::string::npos)
      << message;
  waiter->begin_writing(); // free again once the holder is done
  waiter->rollback();
}

TEST(history_store_postgresql, AServerThatIsDownIsNamedWithTheFixAndNoPassword) {
  const benchmark_registry registry;
  const auto down = run_cli(registry, {"history", "show", "--store",
                                       "postgresql://kerntime:secret@/db?host=/nonexistent"});
  EXPECT_EQ(down.exit_code, exit_bad_input);
  EXPECT_NE(down.err.find("cannot connect to the PostgreSQL history store "
                          "postgresql://kerntime@/db?host=/nonexistent"),
            std::string::npos)
      << down.err;
  EXPECT_EQ(down.err.find("secret"), std::string::npos) << down.err;
  EXPECT_EQ(without_password("postgresql://u:p@h:5432/d"), "postgresql://u@h:5432/d");
  EXPECT_EQ(without_password("postgresql://u@h/d"), "postgresql://u@h/d");
  EXPECT_EQ(without_password("postgresql:///d?host=/s"), "postgresql:///d?host=/s");
}

} // namespace
} // namespace kerntime::detail
