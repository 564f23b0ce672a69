"""The folders of src/ form a one-way pipeline: a folder includes only itself and the folders
listed after it in src/CMakeLists.txt (the top of the pipeline first). The public headers include
only public headers, the bundled suite uses only the public API, and bench/ never reaches into
tests/. Run by ctest; `python3 check_layers.py ROOT` prints every violation."""

import pathlib
import re
import sys
import tempfile
import unittest

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SUBDIRECTORY = re.compile(r"^\s*add_subdirectory\((\w+)\)", re.MULTILINE)
SOURCES = ("*.hpp", "*.cpp", "*.cu", "*.cuh", "*.h")


def sources(folder: pathlib.Path):
    for pattern in SOURCES:
        yield from sorted(folder.rglob(pattern))


def layer_order(root: pathlib.Path) -> list:
    return SUBDIRECTORY.findall((root / "src" / "CMakeLists.txt").read_text())


def violations(root: pathlib.Path) -> list:
    found = []
    order = layer_order(root)
    rank = {name: i for i, name in enumerate(order)}
    src = root / "src"
    for folder in sorted(p for p in src.iterdir() if p.is_dir()):
        if folder.name not in rank:
            found.append(f"src/{folder.name} is not listed in src/CMakeLists.txt")
            continue
        for file in sources(folder):
            for target in INCLUDE.findall(file.read_text(errors="replace")):
                top = target.split("/", 1)[0]
                if top in rank and rank[top] < rank[folder.name]:
                    found.append(f"{file.relative_to(root)} includes {target}: {top} is above "
                                 f"{folder.name} in the pipeline")
    for file in sources(root / "include"):
        for target in INCLUDE.findall(file.read_text(errors="replace")):
            if not target.startswith("kerntime/"):
                found.append(f"{file.relative_to(root)} includes {target}: a public header "
                             "includes only public headers")
    for file in sources(root / "suite"):
        for target in INCLUDE.findall(file.read_text(errors="replace")):
            if "/" in target and not target.startswith("kerntime/"):
                found.append(f"{file.relative_to(root)} includes {target}: the suite uses only "
                             "kerntime's public API")
    for file in [*sources(root / "bench"), *(root / "bench").rglob("CMakeLists.txt"),
                 *(root / "bench").rglob("*.sh")]:
        text = file.read_text(errors="replace")
        if re.search(r"(^|[/\"'\s])tests/", text):
            found.append(f"{file.relative_to(root)} reaches into tests/")
    return found


class layers(unittest.TestCase):
    def test_the_tree_keeps_its_pipeline_order(self):
        root = pathlib.Path(__file__).resolve().parents[2]
        self.assertGreater(len(layer_order(root)), 5)
        self.assertEqual(violations(root), [])

    def test_an_include_of_a_higher_folder_is_found(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            for name in ("include/kerntime", "suite", "bench", "src/cli", "src/stats"):
                (root / name).mkdir(parents=True)
            (root / "src/CMakeLists.txt").write_text("add_subdirectory(cli)\nadd_subdirectory(stats)\n")
            (root / "src/cli/run.cpp").write_text('#include "stats/mean.hpp"\n')
            (root / "src/stats/mean.cpp").write_text('#include "cli/run.hpp"\n')
            (root / "include/kerntime/api.hpp").write_text('#include "stats/mean.hpp"\n')
            (root / "suite/copy.cu").write_text('#include "cli/run.hpp"\n#include "local.hpp"\n')
            (root / "bench/CMakeLists.txt").write_text('add_subdirectory(../tests/gpu)\n')
            found = violations(root)
            self.assertEqual(len(found), 4, found)
            self.assertIn("src/stats/mean.cpp includes cli/run.hpp", found[0])


if __name__ == "__main__":
    if len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        problems = violations(pathlib.Path(sys.argv[1]))
        print("\n".join(problems) or "no violations")
        sys.exit(1 if problems else 0)
    unittest.main()
