"""What the architecture checks share: a throwaway source tree for their self-tests, and their
command line (`python3 check_x.py ROOT` prints every problem; otherwise the unit tests run)."""

import contextlib
import pathlib
import sys
import tempfile
import unittest


@contextlib.contextmanager
def scratch_tree(files, folders=()):
    """The files given, with their text, and any empty folders, under a temporary root that is
    removed afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder)
        for name in folders:
            (root / name).mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        yield root


def main(violations):
    """With a ROOT argument, print its violations and exit 1 when there are any; else run the
    calling module's unit tests."""
    if len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        problems = violations(pathlib.Path(sys.argv[1]))
        print("\n".join(problems) or "no violations")
        sys.exit(1 if problems else 0)
    unittest.main(module="__main__")
