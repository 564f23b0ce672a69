"""docs/architecture.md is the map of the tree, and a map that cites a file that does not exist is
worse than none. Every path it cites exists: a word in backticks that starts with one of the
tree's top folders (`src/`, `include/`, `tests/`, ...) is read from the root, a public header
(`kerntime/x.hpp`) from include/, a bare file name (`measure.cpp`) must name a file somewhere in
the top folders, and a markdown link is read as markdown reads it, from the document's folder; a
glob must match something and `{a,b}` names each alternative. Every folder directly under src/ has
its row in the stages table, in the order of src/CMakeLists.txt (the order the includes follow).
Only architecture.md: the other docs also name files a run writes (`BASE.json`), build targets
(`bench/bench_perturbation`), a .hpp/.cpp pair by its stem (`src/counters/metric_plan`) and
placeholders (`tests/fuzz/corpus/<target>/`), which these rules would report. Run by ctest;
`python3 check_docs.py ROOT` prints every problem."""

import pathlib
import re
import unittest

from check_support import main, scratch_tree

DOCUMENT = "docs/architecture.md"
TOP_FOLDERS = ("src", "include", "tests", "python", "bench", "suite", "scripts", "docs",
               "examples", "cmake", "testkit")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
FILE_NAME = re.compile(r"^[\w.-]+\.(?:cpp|hpp|cu|cuh|h|py|md|json|txt|sh|cmake)$")
LINE_SUFFIX = re.compile(r":\d+(?:[-,]\d+)*$")
STAGE_ROW = re.compile(r"^\|\s*`src/([\w-]+)/?`\s*\|", re.MULTILINE)
SUBDIRECTORY = re.compile(r"^\s*add_subdirectory\((\w+)\)", re.MULTILINE)


def expand_braces(path: str) -> list:
    """`src/result/timer_resolution.{hpp,cpp}` names two files."""
    match = re.search(r"\{([^{}]*)\}", path)
    if not match:
        return [path]
    return [expanded for choice in match.group(1).split(",")
            for expanded in expand_braces(path[:match.start()] + choice + path[match.end():])]


def exists(base: pathlib.Path, path: str) -> bool:
    if any(c in path for c in "*?["):
        return any(base.glob(path.rstrip("/")))
    return (base / path).exists()


def cited_words(text: str) -> list:
    """The words in backticks, with trailing punctuation and `:LINE` suffixes cut off."""
    words = []
    for span in CODE.findall(FENCE.sub("", text)):
        for word in span.split():
            word = LINE_SUFFIX.sub("", word.rstrip(".,;:)"))
            if word:
                words.append(word)
    return words


def file_names(root: pathlib.Path) -> set:
    return {p.name for top in TOP_FOLDERS if (root / top).is_dir() for p in (root / top).rglob("*")}


def missing_paths(root: pathlib.Path, document: pathlib.Path) -> list:
    found = []
    text = document.read_text()
    cited = document.relative_to(root)
    names = None
    for word in cited_words(text):
        for path in expand_braces(word):
            if path.split("/", 1)[0] in TOP_FOLDERS and "/" in path:
                if not exists(root, path):
                    found.append(f"{cited} cites {path}, which does not exist")
            elif path.startswith("kerntime/") and path.endswith(".hpp"):
                if not exists(root / "include", path):
                    found.append(f"{cited} cites {path}, which is not in include/")
            elif FILE_NAME.match(path):
                names = file_names(root) if names is None else names
                if path not in names:
                    found.append(f"{cited} cites {path}: no file of that name in the tree")
    for target in LINK.findall(text):
        path = target.split("#", 1)[0]
        if not path or re.match(r"^[a-z]+:", path):
            continue  # an anchor in the same page, or a web address
        for expanded in expand_braces(path):
            if not exists(document.parent, expanded):
                found.append(f"{cited} links to {expanded}, which does not exist from "
                             f"{document.parent.relative_to(root)}/")
    return found


def missing_rows(root: pathlib.Path, document: pathlib.Path) -> list:
    found = []
    rows = STAGE_ROW.findall(document.read_text())
    folders = sorted(p.name for p in (root / "src").iterdir() if p.is_dir())
    for folder in folders:
        if folder not in rows:
            found.append(f"{document.relative_to(root)} has no row for src/{folder}/")
    order = SUBDIRECTORY.findall((root / "src" / "CMakeLists.txt").read_text())
    listed = [row for row in rows if row in order]
    if listed != [name for name in order if name in listed]:
        found.append(f"{document.relative_to(root)} lists the stages as {', '.join(listed)}; "
                     f"src/CMakeLists.txt has {', '.join(order)}")
    return found


def violations(root: pathlib.Path) -> list:
    document = root / DOCUMENT
    if not document.is_file():
        return [f"{DOCUMENT} is missing"]
    return missing_paths(root, document) + missing_rows(root, document)


class docs(unittest.TestCase):
    def test_the_architecture_map_matches_the_tree(self):
        root = pathlib.Path(__file__).resolve().parents[2]
        self.assertGreater(len(STAGE_ROW.findall((root / DOCUMENT).read_text())), 5)
        self.assertEqual(violations(root), [])

    def test_a_missing_path_and_a_folder_without_its_row_are_found(self):
        with scratch_tree({
            "src/cli/run.cpp": "", "src/cli/run.hpp": "", "include/kerntime/api.hpp": "",
            "docs/stats.md": "",
            "src/CMakeLists.txt":
                "add_subdirectory(cli)\nadd_subdirectory(energy)\nadd_subdirectory(stats)\n",
            DOCUMENT:
                "| folder | stage |\n|---|---|\n"
                "| `src/cli/` | runs (`src/cli/*.cpp`, `src/cli/run.{hpp,cpp}`, `run.cpp`) |\n"
                "| `src/stats/` | statistics (`kerntime/api.hpp`; [stats.md](stats.md)) |\n\n"
                "Gone: `src/cli/gone.cpp:12`, `src/cli/{run,lost}.hpp`, `src/nowhere/*.cpp`,\n"
                "`kerntime/gone.hpp`, `gone.cpp`, [gone.md](gone.md#top).\n",
        }, folders=("src/stats", "src/energy")) as root:
            self.assertEqual(violations(root), [
                "docs/architecture.md cites src/cli/gone.cpp, which does not exist",
                "docs/architecture.md cites src/cli/lost.hpp, which does not exist",
                "docs/architecture.md cites src/nowhere/*.cpp, which does not exist",
                "docs/architecture.md cites kerntime/gone.hpp, which is not in include/",
                "docs/architecture.md cites gone.cpp: no file of that name in the tree",
                "docs/architecture.md links to gone.md, which does not exist from docs/",
                "docs/architecture.md has no row for src/energy/",
            ])

    def test_rows_out_of_the_pipeline_order_are_found(self):
        with scratch_tree({
            "src/CMakeLists.txt": "add_subdirectory(cli)\nadd_subdirectory(stats)\n",
            DOCUMENT: "| `src/stats/` | statistics |\n| `src/cli/` | runs |\n",
        }, folders=("src/cli", "src/stats")) as root:
            self.assertEqual(violations(root), ["docs/architecture.md lists the stages as stats, "
                                                "cli; src/CMakeLists.txt has cli, stats"])

if __name__ == "__main__":
    main(violations)
