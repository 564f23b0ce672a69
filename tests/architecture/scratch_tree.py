"""A throwaway source tree for the architecture checks' self-tests: the files given, with their
text, and any empty folders, under a temporary root that is removed afterwards."""

import contextlib
import pathlib
import tempfile


@contextlib.contextmanager
def scratch_tree(files, folders=()):
    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder)
        for name in folders:
            (root / name).mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        yield root
