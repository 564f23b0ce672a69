#!/usr/bin/env python3
"""The HTML report, end to end: the fixture's kerntime JSON (write_html_fixture: the sample runs
and a state named to break out of markup, a kernel called <script>alert(1)</script>) rendered by
the real `kerntime report` with itself as the baseline, and the H200 sample (tests/report/data).

  structure: the page parses as HTML with every element closed, holds no <script>, shows every
             state's name as text (the hostile ones too), every section is there, and
             docs/sample-report.html is what `kerntime report` makes of the H200 JSON today.
  nightly:   the H200 sample's states replicated to 2,600 (a nightly suite): the page is at most
             5 MB, every state is a row of its benchmark's table with its trials drawn small.
  browser:   headless Chromium loads each page with no console message (a blocked script, a
             failed load or a CSP violation would be one) and a screenshot of each section is
             not blank; the nightly page loads within 30 s on the 2-core CI machine. Exits 77
             (ctest: skipped) when Chromium is not installed.

usage: check_html_report.py structure|browser WRITE_FIXTURE KERNTIME WORK_FOLDER
"""

import copy
import html
import html.parser
import json
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
H200_JSON = ROOT / "tests/report/data/h200-suite.json"
SAMPLE_REPORT = ROOT / "docs/sample-report.html"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise failure(message)


class page_parser(html.parser.HTMLParser):
    """Every element closed in order, the text of each heading, every id, all text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.problems = []
        self.ids = []
        self.headings = []  # (tag, id of the enclosing article or section, text)
        self.text = []
        self.scripts = 0
        self._heading = None
        self._sections = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if "id" in attributes:
            self.ids.append(attributes["id"])
        for name in attributes:
            if name.startswith("on"):
                self.problems.append(f"an event handler attribute {name} on <{tag}>")
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag in ("article", "section", "header"):
            self._sections.append(attributes.get("id", ""))
        if tag in ("h1", "h2", "h3"):
            self._heading = [tag, self._sections[-1] if self._sections else "", ""]

    def handle_startendtag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else '-'}> "
                                 f"at line {self.getpos()[0]}")
            return
        self.stack.pop()
        if tag in ("article", "section", "header"):
            self._sections.pop()
        if self._heading and tag == self._heading[0]:
            self.headings.append(tuple(self._heading))
            self._heading = None

    def handle_data(self, data):
        self.text.append(data)
        if self._heading:
            self._heading[2] += data


def parse(page):
    parser = page_parser()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    check(not parser.problems, f"{page}: {parser.problems[:5]}")
    check(not parser.stack, f"{page}: unclosed elements {parser.stack}")
    check(parser.scripts == 0, f"{page}: {parser.scripts} <script> elements")
    check(len(parser.ids) == len(set(parser.ids)), f"{page}: repeated ids")
    return parser


def shown(name):
    """A name as the page shows it: control characters (not tab, newline, CR) as U+FFFD."""
    return CONTROL.sub("\ufffd", name)


def render(kerntime, source, page, baseline=None):
    command = [kerntime, "report", str(source), "--html", str(page), "-q"]
    if baseline:
        command += ["--baseline", str(baseline)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    check(done.returncode == 0, f"{' '.join(command)}: exit {done.returncode}: {done.stderr}")


def check_structure(page, result_json, compared):
    runs = json.loads(result_json.read_text(encoding="utf-8"))["runs"]
    parser = parse(page)
    states = {text for tag, section, text in parser.headings if tag == "h3"}
    for i, run in enumerate(runs):
        check(f"state-{i}" in parser.ids, f"{page}: no section for state {i}")
        check(shown(run["state_name"]) in states,
              f"{page}: the state {run['state_name']!r} is not shown as its heading")
    benchmarks = {run["benchmark"] for run in runs}
    check(sum(1 for i in parser.ids if i.startswith("benchmark-")) == len(benchmarks),
          f"{page}: not one section per benchmark")
    check("summary" in parser.ids, f"{page}: no summary")
    check(("comparison" in parser.ids) == compared, f"{page}: comparison section wrong")
    return parser


def check_fixture(parser):
    text = "".join(parser.text)
    check("<script>alert(1)</script>" in text, "the script-named kernel is not shown as text")
    check("</title><img src=x onerror=alert(2)>" in text, "the hostile axis is not shown as text")


NIGHTLY_STATES = 2600
NIGHTLY_MOST_BYTES = 5_000_000


def nightly_json(path):
    """The H200 sample's states replicated under new names (an axis `copy`) to NIGHTLY_STATES."""
    source = json.loads(H200_JSON.read_text(encoding="utf-8"))
    runs = []
    for i in range(NIGHTLY_STATES):
        run = copy.deepcopy(source["runs"][i % len(source["runs"])])
        run["axes"].append({"name": "copy", "value": str(i // len(source["runs"]))})
        run["state_name"] += f"/copy={i // len(source['runs'])}"
        runs.append(run)
    path.write_text(json.dumps(dict(source, runs=runs)), encoding="utf-8")
    return [run["state_name"] for run in runs], sum(1 for run in runs if run.get("result"))


def check_nightly(page, names, measured):
    size = page.stat().st_size
    check(size <= NIGHTLY_MOST_BYTES, f"{page}: {size} bytes for {len(names)} states, more than "
                                      f"{NIGHTLY_MOST_BYTES}")
    parser = parse(page)
    check(not any(i.startswith("state-") for i in parser.ids), f"{page}: a section per state")
    text = page.read_text(encoding="utf-8")
    rows = {html.unescape(n).rstrip()
            for n in re.findall(r'<td class="name">(.*?)(?:<svg class="glyph"|</td>)', text)}
    missing = [n for n in names if n not in rows]
    check(not missing, f"{page}: states without a row: {missing[:3]}")
    glyphs = text.count('<svg class="glyph"')
    check(glyphs == measured, f"{page}: {glyphs} trial glyphs for {measured} measured states")
    check("--filter REGEX --html PAGE" in text, f"{page}: no word on how to draw chosen states")
    print(f"nightly: {len(names)} states in {size / 1e6:.1f} MB, a row and a glyph each")
    return parser


# --- the browser -------------------------------------------------------------------------------

def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def browse(browser, url, *options):
    command = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--hide-scrollbars", "--enable-logging=stderr", "--v=0", *options, url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    check(done.returncode == 0, f"chromium exit {done.returncode} on {url}: {done.stderr[-800:]}")
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    check(not console, f"console messages on {url}: {console[:5]}")
    return done.stdout


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG, unfiltered."""
    data = path.read_bytes()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    check(depth == 8 and colour in (2, 6) and interlace == 0, f"{path}: unexpected PNG format")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = row[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                row[x] = (row[x] + left) & 0xFF
            elif kind == 2:
                row[x] = (row[x] + up) & 0xFF
            elif kind == 3:
                row[x] = (row[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                row[x] = (row[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(row))
        previous = row
    return width, height, channels, rows


def check_screenshot(path, what):
    width, height, channels, rows = png_pixels(path)
    colours = set()
    inked = 0
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            pixel = row[x:x + 3]
            colours.add(pixel)
            inked += pixel != b"\xff\xff\xff"
    sampled = (height // 4 + 1) * (width // 4 + 1)
    check(len(colours) >= 3 and inked > sampled // 200,
          f"the screenshot of {what} is blank ({len(colours)} colours, {inked} inked pixels)")


def check_in_browser(browser, page, sections, work):
    url = page.resolve().as_uri()
    dom = browse(browser, url, "--dump-dom")
    check("<script" not in dom.lower(), f"{page}: the browser's DOM holds a script")
    for section in sections:
        check(f'id="{section}"' in dom, f"{page}: the browser's DOM has no #{section}")
    text = page.read_text(encoding="utf-8")
    for section in sections:
        # Headless screenshots ignore a #fragment's scroll: a copy of the page shows the one
        # section (header, comparison and benchmarks are the children of <main>).
        view = work / f"{page.stem}-{section}.html"
        view.write_text(text.replace("</head>", f"<style>main > :not(#{section}) {{display: none}}"
                                                "</style></head>", 1), encoding="utf-8")
        shot = work / f"{page.stem}-{section}.png"
        browse(browser, view.resolve().as_uri(), f"--screenshot={shot}", "--window-size=1100,800")
        check(shot.exists() and shot.stat().st_size > 0, f"no screenshot of #{section}")
        check_screenshot(shot, f"{page.name}#{section}")
    print(f"{page.name}: {len(sections)} sections rendered without console messages")


PAGE_WIDTH = 1400  # a laptop's browser window: no table may need its own scroll bar there


def check_width(browser, page, work):
    """At a 1400 px window, the page is no wider than the window and no table overflows its
    box. Measured by a copy of the page with a script (the report itself allows none) that
    writes the widths into the DOM Chromium dumps."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text, count=1)
    measure = ("<script>addEventListener('load', () => {"
               "const wide = [...document.querySelectorAll('table')]"
               ".filter(t => t.scrollWidth > t.clientWidth + 1)"
               ".map(t => (t.querySelector('td.name') || t).textContent.slice(0, 40));"
               "document.body.dataset.pageWidth = document.documentElement.scrollWidth;"
               "document.body.dataset.overflowing = JSON.stringify(wide);});</script>")
    copy = work / f"{page.stem}-width.html"
    copy.write_text(text.replace("</body>", measure + "</body>", 1), encoding="utf-8")
    dom = browse(browser, copy.resolve().as_uri(), "--dump-dom", "--virtual-time-budget=2000",
                 f"--window-size={PAGE_WIDTH},900")
    width = re.search(r'data-page-width="(\d+)"', dom)
    overflowing = re.search(r'data-overflowing="([^"]*)"', dom)
    check(width is not None and overflowing is not None, f"{page}: the width was not measured")
    check(int(width.group(1)) <= PAGE_WIDTH,
          f"{page} is {width.group(1)} px wide at a {PAGE_WIDTH} px window")
    check(html.unescape(overflowing.group(1)) == "[]",
          f"{page}: tables wider than their box at {PAGE_WIDTH} px: "
          f"{html.unescape(overflowing.group(1))}")
    print(f"{page.name}: {width.group(1)} px wide at a {PAGE_WIDTH} px window, no table overflows")


def main(argv):
    if len(argv) != 5 or argv[1] not in ("structure", "browser"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, write_fixture, kerntime, work = argv[1], argv[2], argv[3], pathlib.Path(argv[4])
    browser = chromium()
    if mode == "browser" and browser is None:
        print("SKIPPED: chromium not found (apt-get install chromium; scripts/setup.sh does)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    fixture = work / "fixture.json"
    done = subprocess.run([write_fixture, str(fixture)], capture_output=True, text=True)
    check(done.returncode == 0, f"write_html_fixture: {done.stderr}")
    fixture_page = work / "fixture.html"
    render(kerntime, fixture, fixture_page, baseline=fixture)
    h200_page = work / "h200.html"
    render(kerntime, H200_JSON, h200_page)
    fixture_parsed = check_structure(fixture_page, fixture, compared=True)
    check_fixture(fixture_parsed)
    h200_parsed = check_structure(h200_page, H200_JSON, compared=False)
    nightly = work / "nightly.json"
    nightly_page = work / "nightly.html"
    names, measured = nightly_json(nightly)
    render(kerntime, nightly, nightly_page)
    nightly_parsed = check_nightly(nightly_page, names, measured)
    if mode == "structure":
        check(SAMPLE_REPORT.read_bytes() == h200_page.read_bytes(),
              f"{SAMPLE_REPORT} is not what kerntime report makes of {H200_JSON} now: run "
              f"kerntime report {H200_JSON.relative_to(ROOT)} --html "
              f"{SAMPLE_REPORT.relative_to(ROOT)} -q")
        print("structure: the fixture and the H200 sample parse, every state shown")
        return 0
    for page, parsed in ((fixture_page, fixture_parsed), (h200_page, h200_parsed)):
        sections = [i for i in parsed.ids
                    if i in ("summary", "comparison") or i.startswith("benchmark-")]
        check_in_browser(browser, page, sections, work)
        check_width(browser, page, work)
    start = time.monotonic()
    browse(browser, nightly_page.resolve().as_uri(), "--dump-dom")
    seconds = time.monotonic() - start
    check(seconds <= 30, f"{nightly_page} took {seconds:.1f} s to load and lay out (budget 30 s)")
    print(f"{nightly_page.name}: loaded and laid out in {seconds:.1f} s")
    sections = [i for i in nightly_parsed.ids if i.startswith("benchmark-")][:1]
    check_in_browser(browser, nightly_page, sections, work)
    check_width(browser, nightly_page, work)
    return 0


def exit_with(main):
    """Runs a check's main(argv) and exits with its code; a failed check exits 1, saying what."""
    try:
        sys.exit(main(sys.argv))
    except failure as problem:
        print(f"FAILED: {problem}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    exit_with(main)
