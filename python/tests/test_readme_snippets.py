"""The README's and the docs' snippets work as written.

Python: every fenced ```python block of README.md and docs/*.md compiles, and a block that is a
whole program runs in a fresh Python. An HTML comment on the line before the fence says what a
block is:

    <!-- needs-gpu -->   a whole program that needs a CUDA device (and the frameworks it
                         imports): compiled everywhere, run where a device is visible (the gpu mark)
    <!-- fragment -->    not a whole program (names defined elsewhere, a signature): compiled only

An unmarked block runs on any machine: it must finish, or stop at kerntime.DeviceUnavailable
where no device is visible; one whose third-party import (torch, triton) is missing here is
skipped, naming the module. A kerntime module that is missing is a failure.

Shell: every `kerntime ...` line (or `my_benchmarks ...`, the docs' program linking
kerntime_main) of a ```sh, ```bash, ```console or unlabelled block names a subcommand kerntime has
and only flags that subcommand takes, read from `kerntime SUB --help` of
the built command (the package's kerntime/bin/kerntime) or, where this package has none, from the
synopsis of docs/cli.md; that synopsis is checked against `--help` too. `pytest` lines name only
the plugin's options.
"""

import dataclasses
import os
import pathlib
import re
import shlex
import subprocess
import sys
from typing import Dict, List, Optional, Set

import pytest

import kerntime
from kerntime import _kerntime, command, pytest_plugin

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI_DOC = ROOT / "docs" / "cli.md"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)"
                   r"^(?P=indent)(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"^\s*<!--\s*(needs-gpu|fragment)\s*-->\s*$")
PYTHON = {"python", "python3", "py"}
SHELL = {"sh", "bash", "shell", "console", ""}
# A line that starts the kerntime command, or the docs' program linking kerntime_main (the same
# command line), after environment assignments and a prompt.
KERNTIME_LINE = re.compile(
    r"^\s*(?:\$ )?(?:[A-Za-z_]\w*=\S*\s+)*(?:\S*/)?(?:kerntime|my_benchmarks)(?:\s|$)")
PYTEST_LINE = re.compile(r"^\s*(?:\$ )?(?:\S*python3?\s+-m\s+)?pytest(?:\s|$)")
FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
ALWAYS = {"-h", "--help", "--help-all"}  # every subcommand's --help lists them
TOP_LEVEL = {"--version"}
END_OF_COMMAND = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1"}


@dataclasses.dataclass
class Snippet:
    document: pathlib.Path
    line: int
    language: str
    body: str
    marker: Optional[str]

    @property
    def name(self) -> str:
        inside = ROOT in self.document.parents
        return f"{self.document.relative_to(ROOT) if inside else self.document.name}:{self.line}"


def snippets_of(document: pathlib.Path, text: Optional[str] = None) -> List[Snippet]:
    """The fenced blocks of a markdown text, each with the marker on the line before it."""
    text = document.read_text() if text is None else text
    found = []
    for block in FENCE.finditer(text):
        before = text[:block.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.match(before)
        indent = len(block.group("indent"))
        body = "\n".join(line[indent:] for line in block.group("body").split("\n"))
        info = block.group("info").strip()
        found.append(Snippet(document, text.count("\n", 0, block.start()) + 1,
                             info.split()[0] if info else "", body,
                             marker.group(1) if marker else None))
    return found


def documents() -> List[pathlib.Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def all_snippets() -> List[Snippet]:
    return [s for document in documents() for s in snippets_of(document)]


PYTHON_SNIPPETS = [s for s in all_snippets() if s.language in PYTHON]
SHELL_SNIPPETS = [s for s in all_snippets() if s.language in SHELL]


# --- Python -----------------------------------------------------------------------------------

def test_the_readme_has_python_snippets_and_marks_each_one_that_needs_a_gpu():
    readme = [s for s in PYTHON_SNIPPETS if s.document.name == "README.md"]
    assert len(readme) >= 3
    assert any(s.marker == "needs-gpu" for s in readme)


@pytest.mark.parametrize("snippet", PYTHON_SNIPPETS, ids=lambda s: s.name)
def test_every_python_snippet_compiles(snippet):
    compile(snippet.body, snippet.name, "exec")


# Run in a child Python; says in its exit code why it stopped, when that is not a failure.
RUNNER = r"""
import runpy, sys
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
except ModuleNotFoundError as e:
    if (e.name or "").split(".")[0] != "kerntime":
        print(f"missing module {e.name}", file=sys.stderr)
        sys.exit(97)
    raise
except BaseException as e:
    if type(e).__name__ == "DeviceUnavailable" and type(e).__module__.startswith("kerntime"):
        print(f"DeviceUnavailable: {e}", file=sys.stderr)
        sys.exit(98)
    raise
"""
MISSING_MODULE, NO_DEVICE = 97, 98


def run_python(snippet: Snippet, folder: pathlib.Path, timeout: float):
    script = folder / "snippet.py"
    script.write_text(snippet.body)
    package = str(pathlib.Path(kerntime.__file__).resolve().parents[1])
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package, *filter(None, [environment.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "-c", RUNNER, str(script)], cwd=folder,
                          env=environment, capture_output=True, text=True, timeout=timeout)


def judge_run(snippet: Snippet, finished, devices: int) -> Optional[str]:
    """None when the run is fine; the reason to skip it; raises AssertionError on a failure."""
    if finished.returncode == 0:
        return None
    if finished.returncode == MISSING_MODULE:
        return f"{snippet.name} needs a module this machine lacks: {finished.stderr.strip()}"
    if finished.returncode == NO_DEVICE and devices == 0:
        return None  # it ran up to its first measurement, as far as a machine without a GPU goes
    raise AssertionError(f"{snippet.name} failed (exit {finished.returncode}):\n"
                         f"{finished.stdout}{finished.stderr}")


def runnable(snippet: Snippet):
    marks = [pytest.mark.gpu] if snippet.marker == "needs-gpu" else []
    return pytest.param(snippet, marks=marks, id=snippet.name)


@pytest.mark.parametrize("snippet", [runnable(s) for s in PYTHON_SNIPPETS
                                     if s.marker != "fragment"])
def test_a_whole_python_snippet_runs_as_written(snippet, tmp_path):
    timeout = 600 if snippet.marker == "needs-gpu" else 120
    reason = judge_run(snippet, run_python(snippet, tmp_path, timeout),
                       _kerntime.cuda_device_count())
    if reason:
        pytest.skip(reason)


# --- the command line -------------------------------------------------------------------------

def synopsis_flags(text: str) -> Dict[str, Set[str]]:
    """docs/cli.md's synopsis: the flags of each subcommand (`history add`: its own key)."""
    section = text[text.index("## Synopsis"):]
    block = FENCE.search(section).group("body")
    entries: Dict[str, Set[str]] = {}
    current = None
    for line in block.splitlines():
        if line.startswith("kerntime "):
            words = line.split()
            name = []
            for word in words[1:3]:
                if not re.fullmatch(r"[a-z]+", word):
                    break
                name.append(word)
            current = " ".join(name)
            entries.setdefault(current, set())
        if current is not None:
            entries[current].update(FLAG.findall(line))
    return entries


def help_flags(binary: pathlib.Path, subcommand: str) -> Set[str]:
    """The options `kerntime SUBCOMMAND --help` lists (CLI11: an indented line per option)."""
    shown = subprocess.run([str(binary), *subcommand.split(), "--help"], capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    flags = set()
    for line in shown.stdout.splitlines():
        names = re.match(r"^\s{1,8}(-\S+(?:,\s?-\S+)*)", line)
        if names:
            flags.update(name for name in re.split(r",\s?", names.group(1)) if FLAG.fullmatch(name))
    return flags


def help_subcommands(binary: pathlib.Path, subcommand: str = "") -> Set[str]:
    shown = subprocess.run([str(binary), *subcommand.split(), "--help"], capture_output=True,
                           text=True, timeout=60)
    listed, inside = set(), False
    for line in shown.stdout.splitlines():
        if re.match(r"^(Subcommands|SUBCOMMANDS):", line):
            inside = True
        elif inside and re.match(r"^\s+[a-z][\w-]*(\s|$)", line):
            listed.add(line.split()[0])
        elif inside and line.strip() and not line.startswith(" "):
            inside = False
    return listed


def built_command() -> Optional[pathlib.Path]:
    path = command.command_path()
    return path if os.access(path, os.X_OK) else None


def known_flags() -> Dict[str, Set[str]]:
    """Each subcommand's flags: from the built command's --help, else from docs/cli.md."""
    documented = synopsis_flags(CLI_DOC.read_text())
    binary = built_command()
    if binary is None:
        return documented
    return {name: help_flags(binary, name) for name in documented}


def command_lines(snippet: Snippet, pattern: re.Pattern) -> List[str]:
    """The lines of a shell block that start a command pattern finds, continuations joined (a
    backslash; in an unlabelled block, an indented line after a command, as in a synopsis)."""
    joined: List[str] = []
    continues = False
    for line in snippet.body.replace("\\\n", " ").splitlines():
        if pattern.match(line):
            joined.append(line.strip())
            continues = snippet.language == ""
        elif continues and line.startswith((" ", "\t")) and line.strip():
            joined[-1] += " " + line.strip()
        else:
            continues = False
    return joined


def words_of(line: str) -> List[str]:
    line = line[2:] if line.startswith("$ ") else line
    words = shlex.split(line, comments=True)
    while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
        words = words[1:]
    for i, word in enumerate(words):
        if word in END_OF_COMMAND or (word.endswith(";") and i > 0):
            return words[:i]
    return words


def kerntime_problems(line: str, flags: Dict[str, Set[str]]) -> List[str]:
    """What a `kerntime ...` line names that kerntime does not have; empty when it is right."""
    try:
        words = words_of(line)
    except ValueError as e:
        return [f"`{line}` is not a shell command line ({e})"]
    tokens = [part for word in words[1:] for part in word.strip("[]").split("|") if part]
    given = [m.group(0) for m in (re.match(r"--?[A-Za-z][\w-]*", t) for t in tokens) if m]
    positionals = [t for t in tokens if not t.startswith("-")]
    subcommand = ""
    if positionals and words[1].strip("[]") == positionals[0]:  # kerntime SUBCOMMAND ...
        subcommand = positionals[0]
        if any(name.startswith(subcommand + " ") for name in flags):  # history add, ...
            nested = positionals[1] if len(positionals) > 1 else "(none given)"
            if f"{subcommand} {nested}" not in flags:
                return [f"`{line}`: kerntime {subcommand} has no subcommand {nested!r}"]
            subcommand = f"{subcommand} {nested}"
        elif subcommand not in flags:
            return [f"`{line}`: kerntime has no subcommand {subcommand!r}"]
    allowed = flags[subcommand] | ALWAYS
    named = f"kerntime {subcommand}" if subcommand else "kerntime"
    return [f"`{line}`: {named} has no flag {flag}" for flag in given if flag not in allowed]


KERNTIME_SNIPPETS = [s for s in SHELL_SNIPPETS if command_lines(s, KERNTIME_LINE)]


@pytest.fixture(scope="module")
def flags():
    return known_flags()


@pytest.mark.parametrize("snippet", KERNTIME_SNIPPETS, ids=lambda s: s.name)
def test_every_kerntime_line_names_a_real_subcommand_and_its_flags(snippet, flags):
    problems = [p for line in command_lines(snippet, KERNTIME_LINE)
                for p in kerntime_problems(line, flags)]
    assert problems == []


def plugin_options() -> Set[str]:
    class Options:
        def __init__(self):
            self.names: Set[str] = set()

        def getgroup(self, *_args, **_kwargs):
            return self

        def addoption(self, *names, **_kwargs):
            self.names.update(names)

        def addini(self, *_args, **_kwargs):
            pass

    options = Options()
    pytest_plugin.pytest_addoption(options)
    return options.names


def plugin_options_named(snippet: Snippet) -> List[str]:
    return [m.group(1) for line in command_lines(snippet, PYTEST_LINE)
            for m in re.finditer(r"(?<![\w-])(--kerntime-[\w-]+)", line)]


@pytest.mark.parametrize("snippet", [s for s in SHELL_SNIPPETS if plugin_options_named(s)],
                         ids=lambda s: s.name)
def test_every_pytest_line_names_the_plugins_options(snippet):
    options = plugin_options()
    assert [name for name in plugin_options_named(snippet) if name not in options] == []


def test_the_cli_synopsis_lists_exactly_what_each_subcommand_takes():
    binary = built_command()
    if binary is None:
        pytest.skip(f"this kerntime package has no command ({command.command_path()})")
    documented = synopsis_flags(CLI_DOC.read_text())
    subcommands = {name for name in help_subcommands(binary) if name != "history"}
    subcommands |= {f"history {name}" for name in help_subcommands(binary, "history")}
    assert sorted(set(documented) - {""}) == sorted(subcommands)
    for name, listed in documented.items():
        shown = help_flags(binary, name)
        assert (name, sorted(listed - ALWAYS)) == (name, sorted(shown - ALWAYS))


def test_every_flag_of_the_synopsis_is_explained_below_it():
    text = CLI_DOC.read_text()
    body = text[text.index("## Synopsis"):]
    below = body[FENCE.search(body).end():]
    explained = set(FLAG.findall(" ".join(re.findall(r"`([^`\n]+)`", below))))
    missing = {name: sorted(listed - explained - ALWAYS - TOP_LEVEL)
               for name, listed in synopsis_flags(text).items()}
    assert {name: flags for name, flags in missing.items() if flags} == {}


# --- the checks themselves can fail -----------------------------------------------------------

def test_a_broken_snippet_a_wrong_flag_and_a_wrong_subcommand_are_found(tmp_path):
    document = tmp_path / "doc.md"
    text = "\n".join([
        "Intro.", "", "<!-- needs-gpu -->", "```python", "kerntime.bench(fn, x, flops=, bytes=)",
        "```", "", "```sh",
        "kerntime run --filter gemm --bogus 1   # a comment --not-a-flag",
        "OUT=x kerntime history changes --store h.sqlite --html t.html",
        "kerntime frobnicate --json x.json",
        "kerntime history prune --store h.sqlite",
        "build/kerntime list --shard 0/2 --json | head",
        "```", "", "<!-- fragment -->", "```python", "result = kerntime.bench(op, x)", "```", ""])
    snippets = snippets_of(document, text)
    assert [(s.language, s.marker, s.line) for s in snippets] == [
        ("python", "needs-gpu", 4), ("sh", None, 8), ("python", "fragment", 17)]
    with pytest.raises(SyntaxError):
        compile(snippets[0].body, "doc.md:4", "exec")
    flags = synopsis_flags(CLI_DOC.read_text())
    problems = [p for line in command_lines(snippets[1], KERNTIME_LINE)
                for p in kerntime_problems(line, flags)]
    assert problems == [
        "`kerntime run --filter gemm --bogus 1   # a comment --not-a-flag`: kerntime run has no "
        "flag --bogus",
        "`OUT=x kerntime history changes --store h.sqlite --html t.html`: kerntime history "
        "changes has no flag --html",
        "`kerntime frobnicate --json x.json`: kerntime has no subcommand 'frobnicate'",
        "`kerntime history prune --store h.sqlite`: kerntime history has no subcommand 'prune'",
    ]


def test_a_synopsis_continues_on_indented_lines_and_names_each_subcommand():
    flags = synopsis_flags("\n".join([
        "## Synopsis", "", "```", "kerntime run [--filter REGEX] [-q|--quiet]",
        "    [--cuda-graph [on|off|both]]", "kerntime history add F... [--store S]",
        "kerntime --help | --version", "```", ""]))
    assert flags == {"run": {"--filter", "-q", "--quiet", "--cuda-graph"},
                     "history add": {"--store"}, "": {"--help", "--version"}}


def test_a_run_is_judged_by_why_it_stopped(tmp_path):
    snippet = Snippet(tmp_path / "doc.md", 1, "python", "", None)
    done = subprocess.CompletedProcess([], 0, "", "")
    assert judge_run(snippet, done, 0) is None
    no_device = subprocess.CompletedProcess([], NO_DEVICE, "", "DeviceUnavailable: no GPU")
    assert judge_run(snippet, no_device, 0) is None
    with pytest.raises(AssertionError):
        judge_run(snippet, no_device, 1)  # with a GPU, that is a failure
    assert "torch" in judge_run(snippet, subprocess.CompletedProcess(
        [], MISSING_MODULE, "", "missing module torch"), 0)
    with pytest.raises(AssertionError, match="NameError"):
        judge_run(snippet, subprocess.CompletedProcess([], 1, "", "NameError: sizes"), 0)


def test_a_snippet_that_fails_on_the_cpu_fails_and_one_without_torch_is_skipped(tmp_path):
    failing = Snippet(tmp_path / "doc.md", 1, "python", "import kerntime\nkerntime.bnech\n", None)
    with pytest.raises(AssertionError, match="AttributeError"):
        judge_run(failing, run_python(failing, tmp_path, 60), 0)
    missing = Snippet(tmp_path / "doc.md", 1, "python", "import no_such_framework_here\n", None)
    assert "no_such_framework_here" in judge_run(missing, run_python(missing, tmp_path, 60), 0)
    ours = Snippet(tmp_path / "doc.md", 1, "python", "import kerntime.no_such_module\n", None)
    with pytest.raises(AssertionError, match="ModuleNotFoundError"):
        judge_run(ours, run_python(ours, tmp_path, 60), 0)


def test_the_readme_is_a_front_door_not_a_log():
    # A newcomer reads it in five minutes; measured figures live in docs/ with today's value only,
    # so neither the README nor docs/ci.md carries a dated row.
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200, "README.md is over 200 lines: move detail into docs/"
    dated = re.compile(r"\b20\d\d-\d\d-\d\d\b")
    for name in ("README.md", "docs/ci.md"):
        assert not dated.findall((ROOT / name).read_text()), f"{name} holds a dated entry"
