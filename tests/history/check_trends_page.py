#!/usr/bin/env python3
"""The trends page of the results history (`kerntime history show --html PAGE`), end to end:

  structure: the page parses as HTML with every element closed, holds no <script> and no event
             handler, a summary line whose counts match the page (one article per series, each
             with one heading, one chart and, where it has changes, a table row per change mark),
             the series slower at the tip first, and at most MOST_BYTES_PER_SERIES a series.
  browser:   headless Chromium loads it with no console message (a blocked script, a failed load
             or a CSP violation would be one), its DOM holds every chart, and a screenshot of the
             top of the page shows the charts drawn: the medians' blue and, where a series is
             slower at the tip, the change mark's red. Exits 77 (ctest: skipped) when Chromium is
             not installed.

The parser and the PNG reader are check_html_report.py's, the browser headless_chromium.py's
(tests/report).

  made:      first makes the page the real way: 12 nightly runs synthesised from the H200 suite
             run (tests/report/data/h200-suite.json, each state's median moved by 0.2 % noise,
             one state 3 % slower from the 8th run), added with `kerntime history add`, drawn
             with `kerntime history show --html`; then both checks above.

usage: check_trends_page.py structure|browser PAGE [WORK_FOLDER]
       check_trends_page.py made KERNTIME WORK_FOLDER
"""

import hashlib
import json
import pathlib
import random
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "report"))
from check_html_report import (check, check_screenshot, exit_with, parse,  # noqa: E402
                               png_pixels)
from headless_chromium import Browser, find_chromium  # noqa: E402

SUMMARY = re.compile(r'<p class="summary">(\d+) changes? in (\d+) series; (\d+) states? slower '
                     r"at the tip beyond")
ARTICLE = re.compile(r'<article class="trend" id="([^"]+)">(.*?)</article>', re.S)
# A chart of 50 runs measured 2.6 KB (3.5 KB with a change and its table): the bound leaves room.
MOST_BYTES_PER_SERIES = 4_000
MEDIAN_BLUE = (0x00, 0x72, 0xB2)
SLOWER_RED = (0xB4, 0x23, 0x18)


def check_structure(page):
    text = page.read_text(encoding="utf-8")
    parser = parse(page)
    summary = SUMMARY.search(text)
    check(summary is not None, f"{page}: no summary line")
    changes, series, slower = (int(n) for n in summary.groups())
    articles = ARTICLE.findall(text)
    check(len(articles) == series, f"{page}: {len(articles)} series drawn, the summary says {series}")
    headings = [h for h in parser.headings if h[0] == "h3"]
    check(sorted(h[1] for h in headings) == sorted(a[0] for a in articles),
          f"{page}: not one heading per series")
    marks = 0
    tips = []
    for ident, body in articles:
        check(body.count('<svg class="chart trend"') == 1, f"{page}#{ident}: not one chart")
        drawn = body.count('<g class="change')
        rows = body.count("<tr>") - 1 if "<table" in body else 0
        check(drawn == rows, f"{page}#{ident}: {drawn} change marks, {rows} table rows")
        marks += drawn
        tips.append("slower at the tip</strong>" in body)
    check(marks <= changes, f"{page}: {marks} change marks, the summary says {changes} changes")
    check(sum(tips) == slower, f"{page}: {sum(tips)} series marked slower, the summary says {slower}")
    check(tips == sorted(tips, reverse=True), f"{page}: a series slower at the tip after another")
    size = page.stat().st_size
    if series >= 100:
        check(size / series <= MOST_BYTES_PER_SERIES,
              f"{page}: {size / series:.0f} bytes a series, more than {MOST_BYTES_PER_SERIES}")
    print(f"structure: {series} series, {marks} change marks, {slower} slower at the tip, "
          f"{size / max(series, 1):.0f} bytes a series")
    return series, slower


def inked_like(path, colour, tolerance=40):
    """How many pixels of the screenshot are near `colour` (lines are anti-aliased). A regular
    expression walks each row a pixel at a time, so the loop over pixels runs in C."""
    width, _, channels, rows = png_pixels(path)
    near = b"".join(b"[" + re.escape(bytes([max(c - tolerance, 0)])) + b"-" +
                    re.escape(bytes([min(c + tolerance, 255)])) + b"]" for c in colour)
    pixel = re.compile(b"(" + near + b"." * (channels - 3) + b")|.{%d}" % channels, re.S)
    return sum(1 for row in rows for found in pixel.findall(row) if found)


def check_in_browser(executable, page, series, slower, work):
    with Browser(executable) as browser:
        view = browser.open(page.resolve().as_uri(), width=1100, height=900)
        dom = view.dom()
        check("<script" not in dom.lower(), f"{page}: the browser's DOM holds a script")
        charts = dom.count('<svg class="chart trend"')
        check(charts == series, f"{page}: the browser's DOM holds {charts} charts of {series}")
        # The top of the page: the summary and the first series (the slower ones, where any).
        shot = work / f"{page.stem}-top.png"
        view.screenshot(shot, width=1100, height=900)
        view.check_quiet()
    check(shot.stat().st_size > 0, f"no screenshot of {page}")
    check_screenshot(shot, page.name)
    if series > 0:
        blue = inked_like(shot, MEDIAN_BLUE)
        check(blue >= 200, f"{page}: the medians are not drawn ({blue} blue pixels)")
    if slower > 0:
        red = inked_like(shot, SLOWER_RED)
        check(red >= 100, f"{page}: no slower change drawn at the top ({red} red pixels)")
    print(f"browser: {charts} charts in the DOM, the first drawn, no console messages")


SUITE_RUN = pathlib.Path(__file__).resolve().parents[1] / "report/data/h200-suite.json"


def make_page(kerntime, work):
    """The page of a store of 12 synthesised nightly runs, one state made 3 % slower."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    document = json.loads(SUITE_RUN.read_text())
    slower = next(r["state_name"] for r in document["runs"] if r.get("result"))
    random.seed(29)
    store = work / "history.sqlite"
    for night in range(12):
        runs = []
        for run in document["runs"]:
            result = run.get("result")
            if result:
                factor = random.gauss(1.0, 0.002) * (1.03 if run["state_name"] == slower and
                                                     night >= 7 else 1.0)
                result = dict(result, latency_ns=result["latency_ns"] * factor)
            runs.append(dict(run, result=result))
        context = dict(document["context"], date=f"2026-11-{night + 1:02d}T02:00:00Z")
        path = work / f"night{night}.json"
        path.write_text(json.dumps(dict(document, context=context, runs=runs)))
        subprocess.run([kerntime, "history", "add", str(path), "--store", str(store),
                        "--commit", hashlib.sha1(f"night {night}".encode()).hexdigest(),
                        "--branch", "main"], check=True,
                       capture_output=True)
    page = work / "trends.html"
    subprocess.run([kerntime, "history", "show", "--store", str(store), "--html", str(page)],
                   check=True, capture_output=True)
    return page


def main(argv):
    if len(argv) == 4 and argv[1] == "made":
        argv = [argv[0], "browser", str(make_page(argv[2], pathlib.Path(argv[3]))),
                str(pathlib.Path(argv[3]) / "check")]
    if len(argv) not in (3, 4) or argv[1] not in ("structure", "browser"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, page = argv[1], pathlib.Path(argv[2])
    check(page.is_file(), f"no page at {page}")
    series, slower = check_structure(page)
    if mode == "structure":
        return 0
    browser = find_chromium()
    if browser is None:
        print("SKIPPED: chromium not found (apt-get install chromium; scripts/setup.sh does)")
        return 77
    work = pathlib.Path(argv[3]) if len(argv) == 4 else page.parent / f"{page.stem}-check"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    check_in_browser(browser, page, series, slower, work)
    return 0


if __name__ == "__main__":
    exit_with(main)
