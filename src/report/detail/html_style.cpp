#include "report/detail/html_style.hpp"

namespace kerntime::detail {

const std::string_view html_style_sheet = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2430;background:#fff}
main{max-width:1320px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:32px 0 8px;border-bottom:2px solid #d6dbe3;padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px}h4{font-size:13px;margin:12px 0 4px;color:#47526a}
code,.name{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;overflow-wrap:anywhere;white-space:pre-wrap}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d6dbe3;padding:3px 8px;text-align:left;vertical-align:top}
table.latency,table.comparison{display:block;overflow-x:auto;max-width:100%}td.name{min-width:10em}
table.latency{font-size:12px}table.latency th,table.latency td{padding:2px 5px}
th{background:#f2f4f8}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dl.facts dt{color:#5a6478}dl.facts dd{margin:0}
article.state{border:1px solid #e1e5ec;border-radius:6px;padding:4px 14px 10px;margin:14px 0}
figure{margin:6px 0 10px}figcaption{font-size:12px;color:#5a6478}
svg.chart{display:block;max-width:100%;height:auto;font-size:11px}
svg .grid{stroke:#e6e9ef}svg .tick,svg .axis-name,svg .legend{fill:#47526a}
svg .row-hit{fill:transparent}svg .row-label{fill:#1d2430}svg .row-label.flagged{fill:#b42318;font-weight:bold}
svg circle{fill:var(--c);fill-opacity:.75}svg .trial-median{stroke:#1d2430;stroke-width:2}
svg .median{stroke:#1d2430;stroke-dasharray:5 3;stroke-width:1.2}
svg.glyph{display:block;margin-top:2px}svg.glyph path{stroke:#2f5d9e;stroke-width:1.5;fill:none}
svg .spread{stroke:var(--c);stroke-width:2}svg .spread-box{fill:var(--c);fill-opacity:.45}
svg .bar,svg .swatch{fill:var(--c)}svg .bar-label{font-family:ui-monospace,Menlo,Consolas,monospace}
svg .line{stroke:var(--c);fill:none;stroke-width:1.5}svg .throttle{fill:#fde2e1}
svg .band{fill:#eef1f5}svg .reference{stroke:#1d2430;stroke-dasharray:4 3}
svg .interval{stroke:var(--c);stroke-width:3}svg .estimate{fill:var(--c);fill-opacity:1}
.series-0{--c:#0072b2}.series-1{--c:#e69f00}.series-2{--c:#009e73}.series-3{--c:#cc79a7}.series-4{--c:#56b4e9}
.series-5{--c:#d55e00}.series-6{--c:#7f7f7f}.series-7{--c:#b8a000}.series-8{--c:#332288}.series-9{--c:#117733}
.verdict-slower{--c:#b42318;color:#b42318;font-weight:bold}.verdict-faster{--c:#067647;color:#067647}
.verdict-same{--c:#5a6478}.verdict-inconclusive{--c:#b54708;color:#b54708}
.verdict-clock{--c:#7a5af8;color:#7a5af8}
.failed{color:#b42318}.skipped{color:#5a6478}.throttled{color:#b42318}
ul.warnings{margin:4px 0;padding-left:20px;color:#8a4b08}
nav ul{columns:3;margin:4px 0;padding-left:20px}
)";

} // namespace kerntime::detail
