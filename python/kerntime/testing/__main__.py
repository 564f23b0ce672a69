"""python -m kerntime.testing SCRIPT [ARGS...]: run a Python script with kerntime.testing.patch()
in force, so its triton.testing.do_bench (TileLang's, FlashInfer's) calls measure with kerntime.
``-m MODULE`` runs a module instead, as ``python -m`` does."""

from __future__ import annotations

import os
import runpy
import sys

from . import patch

USAGE = ("usage: python -m kerntime.testing SCRIPT [ARGS...]\n"
         "       python -m kerntime.testing -m MODULE [ARGS...]\n"
         "Runs the script with triton.testing.do_bench, tilelang.profiler.do_bench and "
         "flashinfer.testing.bench_gpu_time measured by kerntime.")


def main(argv: list) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    patch()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(f"kerntime.testing: -m needs a module name\n{USAGE}", file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    if not os.path.exists(argv[0]):
        print(f"kerntime.testing: no script at {argv[0]!r}; give the path of a Python file "
              "(or -m MODULE)", file=sys.stderr)
        return 2
    sys.argv = list(argv)
    # As `python script.py` does: the script's folder first on the import path.
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
