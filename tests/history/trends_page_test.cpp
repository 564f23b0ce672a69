// The trends page fed with real series and the change points find_change_points finds in them:
// each state named once, hostile names shown as text, a change marked with its size and commit
// range, the state slower at the tip first, a series of one run drawn, close changes labelled
// apart, and the page's size at nightly scale (2,600 series of 50 runs) bounded.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "history/change_points.hpp"
#include "history/trends_page.hpp"

namespace kerntime::detail {
namespace {

constexpr double band = 0.01;

// A 40-hex-digit commit, different for each run of each series from its first digit on
// (splitmix64), as git's are.
std::string commit_of(std::uint64_t series, std::uint64_t run) {
  std::string commit;
  std::uint64_t z = series * 1'000'003 + run;
  while (commit.size() < 40) {
    z += 0x9e3779b97f4a7c15U;
    std::uint64_t x = z;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9U;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebU;
    commit += fmt::format("{:016x}", x ^ (x >> 31));
  }
  return commit.substr(0, 40);
}

// Nightly at 02:00 from 2026-10-01.
std::string night(std::size_t run) {
  using namespace std::chrono;
  const year_month_day day{sys_days{year{2026} / October / 1} + days{run}};
  return fmt::format("{:04d}-{:02d}-{:02d}T02:00:00Z", static_cast<int>(day.year()),
                     static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
}

// `runs` nightly runs of a state at `level_ns` with 0.3 % noise, multiplied by `step` from
// run `step_at` on; the change points are what find_change_points finds in the medians.
trend_series series_of(std::string state, std::size_t runs, double step = 1.0,
                       std::size_t step_at = 0, std::size_t seed = 1, double level_ns = 84'000) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(1.0, 0.003);
  trend_series s;
  s.device = "NVIDIA H200";
  s.state = std::move(state);
  for (std::size_t i = 0; i < runs; ++i) {
    series_point p;
    p.run_id = static_cast<std::int64_t>(100 + i);
    p.date = night(i);
    p.commit = commit_of(seed, i);
    p.branch = "main";
    p.median_ns = level_ns * noise(random) * (step_at > 0 && i >= step_at ? step : 1.0);
    p.low_ns = p.median_ns * 0.997;
    p.high_ns = p.median_ns * 1.003;
    p.sm_clock_mhz = step_at > 0 && i >= step_at ? 1755.0 : 1980.0;
    s.points.push_back(p);
  }
  std::vector<double> medians;
  for (const auto& p : s.points) {
    medians.push_back(p.median_ns);
  }
  s.changes = find_change_points(medians);
  for (const auto& c : s.changes) {
    s.slower_beyond_band.push_back(c.ratio_low > 1 + band);
  }
  return s;
}

std::string page_of(const std::vector<trend_series>& series) {
  return trends_page(series, {.store = "nightly.sqlite", .threshold = band});
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t found = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++found;
  }
  return found;
}

TEST(trends_page_test, EachStateIsNamedOnceAsTheHeadingOfItsChart) {
  const std::vector<trend_series> series{series_of("gemm_bf16/size=4096", 50, 1.02, 30, 1),
                                         series_of("gemm_bf16/size=8192", 50),
                                         series_of("softmax/rows=65536", 20)};
  const auto page = page_of(series);
  for (const auto& s : series) {
    EXPECT_EQ(count(page, s.state), 1U) << s.state;
    EXPECT_NE(page.find(">" + s.state + "</h3>"), std::string::npos) << s.state;
  }
  EXPECT_EQ(count(page, "<svg class=\"chart trend\""), 3U);
  EXPECT_EQ(count(page, "<article class=\"trend\""), 3U);
  EXPECT_EQ(count(page, "</article>"), 3U);
  EXPECT_NE(page.find("<title>kerntime trends: nightly.sqlite</title>"), std::string::npos);
}

TEST(trends_page_test, EveryNameACallerGaveIsEscaped) {
  auto s = series_of("gemm<script>alert(1)</script>/tile=\"x\"", 50, 1.02, 30, 1);
  s.device = "H200 <b>&</b>";
  for (auto& p : s.points) {
    p.branch = "<i>main</i>";
    p.date = "<u>" + p.date;
  }
  s.points[29].commit = "<img src=x onerror=alert(2)>";
  s.points[30].commit = "'><svg onload=alert(3)>";
  const auto page = trends_page(std::vector{s}, {.store = "<em>store</em>", .threshold = band});
  EXPECT_EQ(page.find("<script"), std::string::npos);
  for (const auto* tag : {"<b>", "<i>", "<u>", "<img", "<svg onload", "<em>"}) {
    EXPECT_EQ(page.find(tag), std::string::npos) << tag;
  }
  EXPECT_NE(page.find("gemm&lt;script&gt;alert(1)&lt;/script&gt;/tile=&quot;x&quot;"),
            std::string::npos);
  EXPECT_NE(page.find("H200 &lt;b&gt;&amp;&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("branch &lt;i&gt;main&lt;/i&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;em&gt;store&lt;/em&gt;"), std::string::npos);
  // The commit range of the change, each commit cut to 10 characters before escaping.
  EXPECT_NE(page.find("&lt;img src=x..&#39;&gt;&lt;svg onl"), std::string::npos);
}

TEST(trends_page_test, AChangeIsMarkedWithItsSizeAndCommitRange) {
  const auto s = series_of("gemm_bf16/size=4096", 50, 1.02, 30, 1);
  ASSERT_EQ(s.changes.size(), 1U);
  ASSERT_EQ(s.changes[0].index, 30U);
  ASSERT_TRUE(s.slower_beyond_band[0]);
  const auto page = page_of({s});
  const auto& c = s.changes[0];
  const std::string size = fmt::format("{:+.2f} % [{:+.2f}, {:+.2f}]", 100 * (c.ratio - 1),
                                       100 * (c.ratio_low - 1), 100 * (c.ratio_high - 1));
  const std::string range =
      s.points[29].commit.substr(0, 10) + ".." + s.points[30].commit.substr(0, 10);
  EXPECT_EQ(count(page, "<g class=\"change slower\">"), 1U);
  EXPECT_EQ(count(page, "<g class=\"change"), 1U);
  const auto mark = page.find("<g class=\"change slower\">");
  const auto mark_end = page.find("</g>", mark);
  const std::string drawn = page.substr(mark, mark_end - mark);
  EXPECT_NE(drawn.find(">" + size + "<tspan"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find(">" + range + "</tspan>"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find(s.points[29].commit), std::string::npos) << "the full commits on hover";
  EXPECT_NE(drawn.find(s.points[30].commit), std::string::npos);
  // The table: the runs either side with date and commit, the change, the clock either side.
  EXPECT_NE(
      page.find(fmt::format("<td>run 129, {}, <code title=\"{}\">{}</code></td>", s.points[29].date,
                            s.points[29].commit, s.points[29].commit.substr(0, 10))),
      std::string::npos);
  EXPECT_NE(page.find(fmt::format("<td>run 130, {}, ", s.points[30].date)), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num slower\">" + size + "</td>"), std::string::npos);
  EXPECT_NE(page.find("1980 \xE2\x86\x92 1755 MHz"), std::string::npos);
  EXPECT_NE(page.find("1 change in 1 series; 1 state slower at the tip beyond \xC2\xB1"
                      "1 %"),
            std::string::npos);
}

TEST(trends_page_test, AFlatSeriesHasItsLevelButNoChangeMarkOrTable) {
  const auto s = series_of("reduce/n=1048576", 50);
  ASSERT_TRUE(s.changes.empty());
  const auto page = page_of({s});
  EXPECT_EQ(page.find("<g class=\"change"), std::string::npos);
  EXPECT_EQ(page.find("<table"), std::string::npos);
  EXPECT_EQ(count(page, "<path class=\"level\" d=\"M"), 1U);
  EXPECT_EQ(count(page, "<path class=\"interval\""), 1U);
  EXPECT_NE(page.find("no change"), std::string::npos);
  EXPECT_NE(page.find("0 changes in 1 series; 0 states slower"), std::string::npos);
}

TEST(trends_page_test, TheStateSlowerAtTheTipComesFirstThenTheOthersByName) {
  const std::vector<trend_series> series{
      series_of("c_flat", 50, 1.0, 0, 3), series_of("z_slower", 50, 1.02, 30, 1),
      series_of("a_faster", 50, 0.97, 30, 2), series_of("b_slower_then_back", 60, 1.03, 20, 4)};
  // b: slower from run 20, back to the old level from run 40: slower once, not at the tip.
  auto mixed = series[3];
  for (std::size_t i = 40; i < mixed.points.size(); ++i) {
    mixed.points[i].median_ns /= 1.03;
  }
  std::vector<double> medians;
  for (const auto& p : mixed.points) {
    medians.push_back(p.median_ns);
  }
  mixed.changes = find_change_points(medians);
  mixed.slower_beyond_band.clear();
  for (const auto& c : mixed.changes) {
    mixed.slower_beyond_band.push_back(c.ratio_low > 1 + band);
  }
  ASSERT_EQ(mixed.changes.size(), 2U);
  ASSERT_TRUE(series[1].slower_beyond_band.back());
  ASSERT_FALSE(series[2].changes.empty());
  auto all = series;
  all[3] = mixed;
  const auto page = page_of(all);
  const auto at = [&page](const std::string& state) { return page.find(">" + state + "</h3>"); };
  EXPECT_LT(at("z_slower"), at("a_faster"));
  EXPECT_LT(at("a_faster"), at("b_slower_then_back"));
  EXPECT_LT(at("b_slower_then_back"), at("c_flat"));
  EXPECT_LT(at("c_flat"), page.size());
  EXPECT_EQ(count(page, "slower at the tip</strong>"), 1U);
  EXPECT_EQ(count(page, "<g class=\"change slower\">"), 2U) << "z's and b's first";
  EXPECT_NE(page.find("4 changes in 4 series; 1 state slower at the tip"), std::string::npos);
}

TEST(trends_page_test, ASeriesOfOneRunIsDrawnAsOneDot) {
  const auto s = series_of("first_night", 1);
  const auto page = page_of({s});
  // The line of one run: a move to it and a step of nothing, a vertex for the dot.
  const std::regex line("<path class=\"median dots\" d=\"m[0-9.]+ [0-9.]+l0 0\"/>");
  EXPECT_TRUE(std::regex_search(page, line)) << page;
  EXPECT_EQ(count(page, "<tspan"), 1U) << "one run labelled";
  const auto chart = page.substr(page.find("<svg class=\"chart"));
  EXPECT_EQ(chart.find("nan"), std::string::npos);
  EXPECT_EQ(chart.find("inf"), std::string::npos);
  // No runs at all: a page still, with the series named.
  const auto empty = page_of({series_of("never_ran", 0)});
  EXPECT_NE(empty.find(">never_ran</h3>"), std::string::npos);
  const auto no_runs = empty.substr(empty.find("<svg class=\"chart"));
  EXPECT_EQ(no_runs.find("nan"), std::string::npos);
  EXPECT_EQ(no_runs.find("inf"), std::string::npos);
}

TEST(trends_page_test, ChangesCloseTogetherHaveTheirLabelsOnRowsApart) {
  auto s = series_of("attention/seq=8192", 40, 1.03, 20, 5);
  for (std::size_t i = 24; i < s.points.size(); ++i) {
    s.points[i].median_ns *= 1.03;
  }
  std::vector<double> medians;
  for (const auto& p : s.points) {
    medians.push_back(p.median_ns);
  }
  s.changes = find_change_points(medians);
  s.slower_beyond_band.assign(s.changes.size(), true);
  ASSERT_EQ(s.changes.size(), 2U);
  ASSERT_EQ(s.changes[1].index - s.changes[0].index, 4U);
  const auto page = page_of({s});
  // Each change's dashed line starts at the top of its label's row.
  const std::regex mark("<g class=\"change slower\"><title>[^<]*</title><path d=\"M([0-9.]+) "
                        "([0-9.]+)V");
  std::vector<double> tops;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), mark); it != std::sregex_iterator();
       ++it) {
    tops.push_back(std::stod((*it)[2]));
  }
  ASSERT_EQ(tops.size(), 2U);
  EXPECT_NE(tops[0], tops[1]) << "two labels 4 runs apart share a row";
}

TEST(trends_page_test, ThePageStaysSmallForANightlySuiteOf2600Series) {
  constexpr std::size_t states = 2600;
  std::vector<trend_series> series;
  series.reserve(states);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < states; ++i) {
    const bool step = i % 10 == 0; // one state in ten changed
    series.push_back(series_of(fmt::format("suite/kernel_{:04d}/size={}", i, 1 << (10 + i % 8)), 50,
                               step ? 1.02 : 1.0, step ? 30 : 0, i + 1));
    changed += series.back().changes.empty() ? 0 : 1;
  }
  ASSERT_GE(changed, states / 10);
  const auto page = page_of(series);
  const double per_series = static_cast<double>(page.size()) / states;
  std::printf("%zu series of 50 runs (%zu with a change): %zu bytes, %.0f per series\n", states,
              changed, page.size(), per_series);
  RecordProperty("bytes_per_series", static_cast<int>(per_series));
  EXPECT_EQ(count(page, "<svg class=\"chart trend\""), states);
  EXPECT_LE(per_series, 3500) << "measured 2,698 bytes per series";
}

} // namespace
} // namespace kerntime::detail
