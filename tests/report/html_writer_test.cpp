#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "html_fixture.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/report.hpp"
#include "kerntime/roofline.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/svg_chart.hpp"
#include "sample_runs.hpp"

namespace kerntime {
namespace {

std::string render_html(const std::vector<benchmark_run>& runs,
                        const comparison* compared = nullptr) {
  std::ostringstream out;
  make_html_writer(compared)->print(out, test::sample_context(), runs);
  return out.str();
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

TEST(HtmlText, escapes_markup_quotes_and_control_characters) {
  EXPECT_EQ(detail::html_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(detail::html_escape("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(detail::html_escape(std::string("x\x01y\x7Fz\0w", 7)),
            "x\xEF\xBF\xBDy\xEF\xBF\xBDz\xEF\xBF\xBDw");
  EXPECT_EQ(detail::html_escape("c1 \xC2\x85 end"), "c1 \xEF\xBF\xBD end");
  EXPECT_EQ(detail::html_escape("bad \xFF byte, \xC3\xA9 kept"),
            "bad \xEF\xBF\xBD byte, \xC3\xA9 kept");
}

TEST(HtmlText, ids_are_built_from_indices_and_plain_characters_only) {
  EXPECT_EQ(detail::html_id("state", 12), "state-12");
  EXPECT_EQ(detail::html_id("a\"<b", 0), "a__b-0");
}

TEST(SvgChart, ticks_are_round_and_cover_the_values) {
  const auto s = detail::nice_scale(172.3, 181.9, 5);
  EXPECT_DOUBLE_EQ(s.low, 172);
  EXPECT_DOUBLE_EQ(s.high, 182);
  EXPECT_EQ(s.ticks.size(), 6U);
  const auto flat = detail::nice_scale(5, 5);
  EXPECT_LT(flat.low, 5);
  EXPECT_GT(flat.high, 5);
}

TEST(HtmlWriter, a_kernel_named_script_is_shown_as_text_and_no_script_is_written) {
  const std::string html = render_html(test::html_fixture_runs());
  EXPECT_EQ(lower(html).find("<script"), std::string::npos);
  EXPECT_EQ(lower(html).find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;/title&gt;&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(html.find("attack&lt;&quot;double&quot; &amp; &#39;single&#39;&gt;\xEF\xBF\xBD"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;not bold&lt;/b&gt; &amp; &quot;quoted&quot;"), std::string::npos);
  // The page forbids every script, should an escape ever be missed.
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
}

TEST(HtmlWriter, the_page_fetches_nothing) {
  std::string html = render_html(test::html_fixture_runs());
  for (std::size_t at = 0;
       (at = html.find("http://www.w3.org/2000/svg", at)) != std::string::npos;) {
    html.erase(at, 26); // the SVG namespace names, it loads nothing
  }
  for (const char* fetch :
       {"http://", "https://", "<link", "<iframe", "url(", "@import", "src=\""}) {
    EXPECT_EQ(lower(html).find(fetch), std::string::npos) << fetch;
  }
}

TEST(HtmlWriter, every_state_has_its_section_with_charts) {
  const auto runs = test::html_fixture_runs();
  const std::string html = render_html(runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string id = "<article class=\"state\" id=\"state-" + std::to_string(i) + "\">";
    const auto at = html.find(id);
    ASSERT_NE(at, std::string::npos) << runs[i].state_name;
    const auto end = html.find("</article>", at);
    const std::string section = html.substr(at, end - at);
    EXPECT_NE(section.find(detail::html_escape(runs[i].state_name)), std::string::npos);
    if (runs[i].status == run_status::ok) {
      EXPECT_NE(section.find("class=\"distribution\""), std::string::npos);
      EXPECT_NE(section.find("<svg"), std::string::npos);
    } else if (runs[i].status == run_status::failed) {
      EXPECT_NE(section.find("class=\"failed\""), std::string::npos);
    } else {
      EXPECT_NE(section.find("skipped: "), std::string::npos);
    }
  }
}

TEST(HtmlWriter, the_distribution_draws_every_iteration) {
  const auto runs = test::sample_runs();
  const auto& run = *std::find_if(runs.begin(), runs.end(),
                                  [](const benchmark_run& r) { return r.result.has_value(); });
  std::size_t iterations = 0;
  for (const auto& t : run.result->trials) {
    iterations += t.iterations.size();
  }
  const std::string html = render_html({run});
  const auto at = html.find("class=\"distribution\"");
  const std::string figure = html.substr(at, html.find("</figure>", at) - at);
  std::size_t circles = 0;
  for (std::size_t p = 0; (p = figure.find("<circle", p)) != std::string::npos; ++p) {
    ++circles;
  }
  EXPECT_EQ(circles, iterations);
  EXPECT_NE(figure.find("class=\"median\""), std::string::npos);
}

TEST(HtmlWriter, a_comparison_shows_each_ratio_with_its_interval) {
  const auto runs = test::html_fixture_runs();
  comparison c;
  c.base_device = "NVIDIA H200";
  c.new_device = "NVIDIA H200";
  state_comparison s;
  s.state_name = runs.back().state_name;
  s.base_ns = 100000;
  s.new_ns = 105000;
  s.ratio = 1.05;
  s.ratio_low = 1.03;
  s.ratio_high = 1.07;
  s.unit = "trials";
  s.base_units = 5;
  s.new_units = 5;
  s.band = 0.02;
  s.outcome = verdict::slower;
  c.states.push_back(s);
  c.only_in_base.push_back(test::script_kernel_name());
  const std::string html = render_html(runs, &c);
  EXPECT_NE(html.find("<section id=\"comparison\""), std::string::npos);
  EXPECT_NE(html.find("1.0500 [1.0300, 1.0700]"), std::string::npos);
  EXPECT_NE(html.find("verdict-slower"), std::string::npos);
  EXPECT_EQ(lower(html).find("<script"), std::string::npos);
  EXPECT_EQ(render_html(runs).find("id=\"comparison\""), std::string::npos);
}

// A state compared against a wider band than the threshold is shaded with its own band, so a
// state called "same" never plots outside its shading; a legend names the marks.
TEST(HtmlWriter, each_compared_state_is_shaded_with_its_own_band_under_a_legend) {
  const auto runs = test::html_fixture_runs();
  comparison c;
  c.options.threshold = 0.02;
  for (const auto& [name, band] : {std::pair{"narrow", 0.02}, std::pair{"wide", 0.07}}) {
    state_comparison s;
    s.state_name = name;
    s.ratio = 1.05;
    s.ratio_low = 1.04;
    s.ratio_high = 1.06;
    s.band = band;
    s.outcome = band > 0.05 ? verdict::same : verdict::slower;
    c.states.push_back(s);
  }
  const std::string html = render_html(runs, &c);
  EXPECT_NE(html.find("the \"same\" band of narrow: 0.98"), std::string::npos) << html;
  EXPECT_NE(html.find("the \"same\" band of wide: 0.9346 to 1.07"), std::string::npos);
  EXPECT_NE(html.find("class=\"chart-legend\""), std::string::npos);
  EXPECT_NE(html.find("the state's \"same\" band</text>"), std::string::npos);
}

// A page with too many samples to draw one by one draws each trial's spread instead: 650,000
// dots made a 52 MB page at 2,600 states.
TEST(HtmlWriter, too_many_samples_are_drawn_as_each_trials_spread) {
  auto runs = test::sample_runs();
  const auto few = render_html(runs);
  const std::string dot = "r=\"2.2\"/>"; // a sample's dot (the clock charts' points are r=3)
  EXPECT_NE(few.find(dot), std::string::npos);
  EXPECT_EQ(few.find("class=\"spread\""), std::string::npos);
  std::vector<benchmark_run> many; // up to the 200 measured states drawn one by one
  for (std::size_t measured = 0; measured + 2 <= 200;) {
    for (const auto& r : runs) {
      many.push_back(r);
      many.back().state_name += "/copy=" + std::to_string(many.size());
      measured += r.result ? 1 : 0;
    }
  }
  std::size_t samples = 0;
  std::size_t trials = 0;
  for (auto& r : many) {
    if (r.result) {
      trials += r.result->trials.size();
      for (auto& t : r.result->trials) {
        while (!t.iterations.empty() && t.iterations.size() < 300) {
          t.iterations.push_back(t.iterations.front()); // a real run's 50 to 500 iterations
        }
        samples += t.iterations.size();
      }
    }
  }
  ASSERT_GT(samples, 50'000U) << "the fixture must exceed the page's dot budget";
  const auto page = render_html(many);
  EXPECT_EQ(page.find(dot), std::string::npos);
  std::size_t spreads = 0;
  for (auto at = page.find("class=\"spread\""); at != std::string::npos;
       at = page.find("class=\"spread\"", at + 1)) {
    ++spreads;
  }
  EXPECT_EQ(spreads, trials);
  EXPECT_NE(page.find("a line from p10 to p90"), std::string::npos);
}

// A nightly run's thousands of states: each is a row of its benchmark's table with its trials
// drawn small, and the page says how to draw the charts of chosen states (2,600 states made a
// 30 MB page with a section each).
TEST(HtmlWriter, a_page_of_too_many_states_draws_each_as_a_table_row) {
  const auto runs = test::sample_runs();
  std::vector<benchmark_run> many;
  std::size_t measured = 0;
  std::size_t trials = 0;
  while (measured <= 200) {
    for (const auto& r : runs) {
      many.push_back(r);
      many.back().state_name += "/copy=" + std::to_string(many.size());
      if (r.result) {
        ++measured;
        trials += r.result->trials.size();
      }
    }
  }
  const auto page = render_html(many);
  EXPECT_EQ(page.find("<article"), std::string::npos);
  EXPECT_NE(page.find(fmt::format("{} measured states: too many to draw each one", measured)),
            std::string::npos);
  EXPECT_NE(page.find("--filter REGEX --html PAGE"), std::string::npos);
  std::size_t glyphs = 0;
  for (auto at = page.find("<svg class=\"glyph\""); at != std::string::npos;
       at = page.find("<svg class=\"glyph\"", at + 1)) {
    ++glyphs;
  }
  EXPECT_EQ(glyphs, measured);
  std::size_t trial_paths = 0;
  for (auto at = page.find("<path d=\"M"); at != std::string::npos;
       at = page.find("<path d=\"M", at + 1)) {
    ++trial_paths;
  }
  EXPECT_EQ(trial_paths, trials);
  for (const auto& r : many) { // every state named, failed and skipped ones with their message
    EXPECT_NE(page.find("<td class=\"name\">" + r.state_name + (r.result ? " <svg" : "</td>")),
              std::string::npos)
        << r.state_name;
  }
  many.resize(many.size() - runs.size()); // 200 or fewer measured: each state's section again
  EXPECT_NE(render_html(many).find("<article"), std::string::npos);
}

// Energy that could not be read is one line for the report, not a paragraph in every state.
TEST(HtmlWriter, missing_energy_is_one_hint_for_the_report) {
  auto runs = test::sample_runs();
  std::size_t measured = 0;
  for (auto& r : runs) {
    if (r.result) {
      ++measured;
      r.result->energy = {};
      r.result->energy.unavailable_reason = "the trials lasted 0.062 s; measure longer";
    }
  }
  ASSERT_GE(measured, 2U);
  const std::string html = render_html(runs);
  EXPECT_EQ(html.find("Energy unavailable:"), std::string::npos);
  const auto hint = html.find("<p class=\"energy-hint\">");
  ASSERT_NE(hint, std::string::npos);
  EXPECT_EQ(html.find("<p class=\"energy-hint\">", hint + 1), std::string::npos);
  EXPECT_NE(html.find(fmt::format("no reading for {0} of {0} measured", measured)),
            std::string::npos)
      << html.substr(hint, 300);
}

TEST(HtmlWriter, speed_of_light_and_energy_are_columns_when_present) {
  auto runs = test::sample_runs();
  auto& run = *std::find_if(runs.begin(), runs.end(),
                            [](const benchmark_run& r) { return r.result.has_value(); });
  for (auto& r : runs) { // the sample runs declare work: take it away to see the columns go
    r.sol.reset();
    if (r.result)
      r.result->energy = {};
  }
  EXPECT_EQ(render_html(runs).find("<th>SOL</th>"), std::string::npos);
  speed_of_light sol;
  sol.precision = flop_precision::bf16_tensor;
  sol.peak_flops_per_s = 989.4e12;
  sol.peak_bytes_per_s = 4.8e12;
  sol.compute_pct = 73.21;
  sol.memory_pct = 12.5;
  sol.bound = roofline_bound::compute;
  sol.roofline_ns = 128000;
  sol.peak_source = "table sm_90 <132 SMs>";
  achievable_speed_of_light achievable;
  achievable.flops_per_s = 700e12;
  achievable.compute_pct = 91.04;
  achievable.source = "calibration.json";
  sol.achievable = achievable;
  run.sol = sol;
  run.result->energy.available = true;
  run.result->energy.joules_per_iteration = 0.0925;
  run.result->energy.average_watts = 512.25;
  const std::string html = render_html(runs);
  EXPECT_NE(html.find("<th>SOL</th><th>of achievable</th><th>energy/iter</th><th>power</th>"),
            std::string::npos);
  EXPECT_NE(html.find(">73.2% compute</span>"), std::string::npos);
  EXPECT_NE(html.find(">91.0% compute</span>"), std::string::npos);
  EXPECT_NE(html.find("table sm_90 &lt;132 SMs&gt;"), std::string::npos); // the tooltip, escaped
  EXPECT_NE(html.find(">92.500 mJ</td>"), std::string::npos);
  EXPECT_NE(html.find(">512.2 W</td>"), std::string::npos);
  EXPECT_NE(html.find("Energy: 92.500 mJ per iteration, 512.2 W on average"), std::string::npos);
}

} // namespace
} // namespace kerntime
