#!/usr/bin/env python3
"""The HTML report, end to end: the fixture's kerntime JSON (write_html_fixture: the sample runs
and a state named to break out of markup, a kernel called <script>alert(1)</script>) rendered by
the real `kerntime report` with itself as the baseline, and the H200 sample (tests/report/data).

  structure: the page parses as HTML with every element closed, holds no <script>, shows every
             state's name as text (the hostile ones too), every section is there, and
             docs/sample-report.html is what `kerntime report` makes of the H200 JSON today.
  nightly:   the H200 sample's states replicated to 2,600 (a nightly suite): the page is at most
             5 MB, every state is a row of its benchmark's table with its trials drawn small.
  browser:   one headless Chromium (headless_chromium.py) first proves it catches a blocked
             script, a console call, an exception and a failed load, then loads each page the
             structure check made (listed in its pages.json; ctest runs that check first) at a
             1400 px window with no console message, no page or table wider than the window, and
             a screenshot of each section that is not blank; each page loads within 30 s on the
             2-core CI machine. Exits 77 (ctest: skipped) when Chromium is not installed.

usage: check_html_report.py structure WRITE_FIXTURE KERNTIME WORK_FOLDER
       check_html_report.py browser STRUCTURE_WORK_FOLDER WORK_FOLDER
"""

import html
import html.parser
import json
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import zlib

from headless_chromium import Browser, BrowserError, find_chromium, self_test

ROOT = pathlib.Path(__file__).resolve().parents[2]
H200_JSON = ROOT / "tests/report/data/h200-suite.json"
SAMPLE_REPORT = ROOT / "docs/sample-report.html"
PAGES_LIST = "pages.json"  # written by the structure check, read by the browser check
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
        # Only the name and the axes change: the rest is shared, json.dumps writes it out again.
        template, number = source["runs"][i % len(source["runs"])], i // len(source["runs"])
        runs.append(dict(template, axes=[*template["axes"], {"name": "copy", "value": str(number)}],
                         state_name=f"{template['state_name']}/copy={number}"))
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


# --- the browser (one headless Chromium, headless_chromium.py) ---------------------------------

def add_bytes(a, b):
    """a + b byte by byte, modulo 256, in a few big-integer operations: each byte's low seven
    bits are added apart from the top bit, so no carry crosses into the next byte."""
    low, top = int.from_bytes(b"\x7f" * len(a), "big"), int.from_bytes(b"\x80" * len(a), "big")
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    return (((x & low) + (y & low)) ^ ((x ^ y) & top)).to_bytes(len(a), "big")


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
        if kind == 2:  # "up", every row of a screenshot taken for speed: no loop in Python
            row = bytearray(add_bytes(row, previous))
        for x in range(stride if kind in (1, 3, 4) else 0):
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


PAGE_WIDTH = 1400  # a laptop's browser window: no table may need its own scroll bar there
# The page's width and the tables wider than their box, measured in the loaded page.
MEASURE_WIDTH = ("(() => ({page: document.documentElement.scrollWidth,"
                 " overflowing: [...document.querySelectorAll('table')]"
                 ".filter(t => t.scrollWidth > t.clientWidth + 1)"
                 ".map(t => (t.querySelector('td.name') || t).textContent.slice(0, 40))}))()")


def check_in_browser(browser, page, sections, work):
    """Loaded at a 1400 px window: no console message, no script in the DOM, every section
    there, the page no wider than the window and no table wider than its box; then a
    screenshot of each section at 1100 x 800 px is not blank. Returns the load's seconds."""
    view = browser.open(page.resolve().as_uri(), width=PAGE_WIDTH, height=900)
    dom = view.dom()
    check("<script" not in dom.lower(), f"{page}: the browser's DOM holds a script")
    for section in sections:
        check(f'id="{section}"' in dom, f"{page}: the browser's DOM has no #{section}")
    width = view.evaluate(MEASURE_WIDTH)
    check(width["page"] <= PAGE_WIDTH, f"{page} is {width['page']} px wide at a {PAGE_WIDTH} px window")
    check(not width["overflowing"],
          f"{page}: tables wider than their box at {PAGE_WIDTH} px: {width['overflowing']}")
    for section in sections:
        shot = work / f"{page.stem}-{section}.png"
        view.screenshot(shot, width=1100, height=800, element_id=section)
        check(shot.stat().st_size > 0, f"no screenshot of #{section}")
        check_screenshot(shot, f"{page.name}#{section}")
    view.check_quiet()
    view.close()
    print(f"{page.name}: loaded in {view.load_seconds:.1f} s without console messages, "
          f"{width['page']} px wide at a {PAGE_WIDTH} px window, no table overflows, "
          f"{len(sections)} sections drawn")
    return view.load_seconds


def structure(write_fixture, kerntime, work):
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
    check(SAMPLE_REPORT.read_bytes() == h200_page.read_bytes(),
          f"{SAMPLE_REPORT} is not what kerntime report makes of {H200_JSON} now: run "
          f"kerntime report {H200_JSON.relative_to(ROOT)} --html "
          f"{SAMPLE_REPORT.relative_to(ROOT)} -q")
    # What the browser check opens: each page and the sections to photograph.
    pages = [{"page": page.name, "sections": [i for i in parsed.ids if i in ("summary", "comparison")
                                               or i.startswith("benchmark-")]}
             for page, parsed in ((fixture_page, fixture_parsed), (h200_page, h200_parsed))]
    pages.append({"page": nightly_page.name,
                  "sections": [i for i in nightly_parsed.ids if i.startswith("benchmark-")][:1]})
    (work / PAGES_LIST).write_text(json.dumps(pages, indent=1), encoding="utf-8")
    print("structure: the fixture and the H200 sample parse, every state shown")
    return 0


def browser(pages_folder, work):
    executable = find_chromium()
    if executable is None:
        print("SKIPPED: chromium not found (apt-get install chromium; scripts/setup.sh does)")
        return 77
    listed = pages_folder / PAGES_LIST
    check(listed.is_file(), f"no {listed}: the structure check makes the pages (ctest runs it "
                            "first: html_report_structure)")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with Browser(executable) as chromium:
        self_test(chromium, work)
        for entry in json.loads(listed.read_text(encoding="utf-8")):
            page = pages_folder / entry["page"]
            seconds = check_in_browser(chromium, page, entry["sections"], work)
            check(seconds <= 30, f"{page} took {seconds:.1f} s to load (budget 30 s)")
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "structure":
        return structure(argv[2], argv[3], pathlib.Path(argv[4]))
    if len(argv) == 4 and argv[1] == "browser":
        return browser(pathlib.Path(argv[2]), pathlib.Path(argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


def exit_with(main):
    """Runs a check's main(argv) and exits with its code; a failed check exits 1, saying what."""
    try:
        sys.exit(main(sys.argv))
    except (failure, BrowserError) as problem:
        print(f"FAILED: {problem}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    exit_with(main)
