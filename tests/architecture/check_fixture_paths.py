"""Fixtures and golden files hold no developer's path: a result file copied from a machine keeps
its command line and file names (`--json /root/out/run1.json`), which tell a reader about one
person's machine and nothing about kerntime. Every data, golden and corpus file under tests/ and
bench/ is read for an absolute path under a home or a work folder (/home/, /root/, /work/,
/Users/); a fixture names files relative to a neutral folder (`out/run1.json`) instead. Scripts
that make their own temporary folders are not fixtures and are not read. Run by ctest;
`python3 check_fixture_paths.py ROOT` prints every problem."""

import pathlib
import re
import unittest

from check_support import main, scratch_tree

FIXTURES = ("tests/*/data/**/*", "tests/*/golden/**/*", "tests/fuzz/corpus/**/*",
            "bench/*/tests/**/*")
DEVELOPER_PATH = re.compile(r"(?<![\w.])/(?:home|root|work|Users)/[^\s\"',)]*")


def violations(root: pathlib.Path) -> list:
    found = []
    for pattern in FIXTURES:
        for path in sorted(root.glob(pattern)):
            if not path.is_file() or path.suffix in (".py", ".sh"):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in sorted(set(DEVELOPER_PATH.findall(text))):
                found.append(f"{path.relative_to(root)} holds the developer path {match}")
    return found


class fixture_paths(unittest.TestCase):
    def test_no_fixture_holds_a_developer_path(self):
        root = pathlib.Path(__file__).resolve().parents[2]
        self.assertTrue(list(root.glob("tests/*/data/*.json")))
        self.assertEqual(violations(root), [])

    def test_a_home_or_work_path_in_a_fixture_is_found(self):
        with scratch_tree({
            "tests/compare/data/run.json": '{"command_line": "run --json /root/out/a.json"}',
            "tests/report/golden/report.md": "written by /home/ada/kerntime/build/kerntime\n",
            "tests/fuzz/corpus/fuzz_x/input.json": '["/work/build/kerntime"]',
            "bench/accuracy/tests/sample.csv": "==PROF== (/Users/ada/kerntime)\n",
            "tests/report/data/fine.json": '{"command_line": "run --json out/a.json", "lib": '
                                           '"/usr/lib/libcupti.so", "url": "https://x/work/y"}',
            "tests/history/postgres_server.sh": "mktemp -d /tmp/kerntime-pg.XXXXXX /root/x\n",
        }) as root:
            self.assertEqual(violations(root), [
                "tests/compare/data/run.json holds the developer path /root/out/a.json",
                "tests/report/golden/report.md holds the developer path "
                "/home/ada/kerntime/build/kerntime",
                "tests/fuzz/corpus/fuzz_x/input.json holds the developer path /work/build/kerntime",
                "bench/accuracy/tests/sample.csv holds the developer path /Users/ada/kerntime",
            ])


if __name__ == "__main__":
    main(violations)
