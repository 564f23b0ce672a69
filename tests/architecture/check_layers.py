"""The folders of src/ form a one-way pipeline: a folder includes only itself and the folders
listed after it in src/CMakeLists.txt (the top of the pipeline first). Each public header belongs
to a stage too (PUBLIC_STAGE): a folder includes no public header of a stage above it, and a
public header none of a stage above its own. The public headers include only public headers, the
bundled suite uses only the public API, and bench/ never reaches into tests/. Run by ctest;
`python3 check_layers.py ROOT` prints every violation."""

import pathlib
import re
import unittest

from check_support import main, scratch_tree

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SUBDIRECTORY = re.compile(r"^\s*add_subdirectory\((\w+)\)", re.MULTILINE)
SOURCES = ("*.hpp", "*.cpp", "*.cu", "*.cuh", "*.h")

# The stage each public header belongs to: the folder that makes what it declares, or for a
# header of data types the lowest stage that fills them in (the result's parts are the result's).
PUBLIC_STAGE = {
    "kerntime.hpp": "cli",          # everything, for users: no stage includes it
    "benchmark.hpp": "cli",         # registration, state (src/cli/state.cpp)
    "compare.hpp": "compare",       # compare() and its reports
    "comparison.hpp": "report",     # what a comparison holds: the HTML report shows it
    "report.hpp": "report",
    "roofline.hpp": "result",       # the bound, precisions and speed of light a result holds
    "measure.hpp": "measure",
    "session.hpp": "measure",
    "telemetry.hpp": "result",      # parts of the result
    "counters.hpp": "result",
    "result.hpp": "result",
    "protocol.hpp": "result",
    "statistics.hpp": "stats",
    "cuda.hpp": "cuda",
    "cublas.hpp": "cuda",
    "errors.hpp": "cuda",
}


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
    public_rank = {}
    for header in sorted((root / "include" / "kerntime").glob("*.hpp")):
        stage = PUBLIC_STAGE.get(header.name)
        if stage is None or stage not in rank:
            found.append(f"include/kerntime/{header.name} has no stage in check_layers.py's "
                         "PUBLIC_STAGE (or its stage is not a folder of src/)")
        else:
            public_rank[f"kerntime/{header.name}"] = rank[stage]

    def public_leak(file, folder_rank, where):
        for target in INCLUDE.findall(file.read_text(errors="replace")):
            if target in public_rank and public_rank[target] < folder_rank:
                found.append(f"{file.relative_to(root)} includes {target}, of a stage above "
                             f"{where}")

    for folder in sorted(p for p in src.iterdir() if p.is_dir() and p.name in rank):
        for file in sources(folder):
            public_leak(file, rank[folder.name], folder.name)
    for file in sources(root / "include"):
        for target in INCLUDE.findall(file.read_text(errors="replace")):
            if not target.startswith("kerntime/"):
                found.append(f"{file.relative_to(root)} includes {target}: a public header "
                             "includes only public headers")
        own = public_rank.get(f"kerntime/{file.name}")
        if own is not None and file.name != "kerntime.hpp":
            public_leak(file, own, f"its own ({PUBLIC_STAGE[file.name]})")
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
        with scratch_tree({
            "src/CMakeLists.txt": "add_subdirectory(cli)\nadd_subdirectory(stats)\n",
            "src/cli/run.cpp": '#include "stats/mean.hpp"\n',
            "src/stats/mean.cpp": '#include "cli/run.hpp"\n',
            "include/kerntime/api.hpp": '#include "stats/mean.hpp"\n',
            "suite/copy.cu": '#include "cli/run.hpp"\n#include "local.hpp"\n',
            "bench/CMakeLists.txt": "add_subdirectory(../tests/gpu)\n",
        }) as root:
            found = violations(root)
            self.assertEqual(len(found), 5, found)
            self.assertIn("src/stats/mean.cpp includes cli/run.hpp", found[0])
            self.assertIn("include/kerntime/api.hpp has no stage", found[1])

    def test_a_public_header_of_a_higher_stage_is_found(self):
        with scratch_tree({
            "src/CMakeLists.txt": "add_subdirectory(report)\nadd_subdirectory(result)\n",
            "include/kerntime/report.hpp": '#include "kerntime/result.hpp"\n',
            "include/kerntime/result.hpp": '#include "kerntime/report.hpp"\n',
            "src/result/names.cpp": '#include "kerntime/report.hpp"\n',
            "src/report/writer.cpp": '#include "kerntime/result.hpp"\n',
        }, folders=("suite", "bench")) as root:
            found = violations(root)
            self.assertEqual(len(found), 2, found)
            self.assertIn("src/result/names.cpp includes kerntime/report.hpp", found[0])
            self.assertIn("include/kerntime/result.hpp includes kerntime/report.hpp", found[1])

if __name__ == "__main__":
    main(violations)
