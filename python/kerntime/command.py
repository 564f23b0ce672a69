"""The `kerntime` console command of the Python package: it runs the kerntime binary that the
wheel carries next to this module (kerntime/bin/kerntime; in a build folder, a link to the
build's binary), with the same arguments, output and exit code.

A wheel built where the command's libraries (cmake/packages.cmake) were missing has no binary; the
command then says so in one line, with the packages to install, and exits 2.
"""

import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from ._build_packages import COMMAND_PACKAGES, LIBRARY_PACKAGES

NO_COMMAND_EXIT_CODE = 2
# The packages of cmake/packages.cmake: the command's own, and every build's (present where the
# module was built here, but named too, so the line is the whole install).
NO_COMMAND_MESSAGE = (
    f"kerntime: this installation has no kerntime command (it was built without the headers of "
    f"{', '.join(name for name, _ in COMMAND_PACKAGES[:-1])} or {COMMAND_PACKAGES[-1][0]}); "
    f"install them (Debian/Ubuntu: apt-get install "
    f"{' '.join(package for _, package in LIBRARY_PACKAGES + COMMAND_PACKAGES)}) and reinstall "
    f"kerntime (pip install --no-build-isolation --force-reinstall .)")


def command_path() -> Path:
    """Where the wheel puts the kerntime binary."""
    return Path(__file__).resolve().parent / "bin" / "kerntime"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Replaces this process with the kerntime binary; returns only when there is none."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    path = command_path()
    if not os.access(path, os.X_OK):
        print(NO_COMMAND_MESSAGE, file=sys.stderr)
        return NO_COMMAND_EXIT_CODE
    # exec, not a child process: signals, the terminal and the exit code are the binary's own.
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [str(path), *arguments])


if __name__ == "__main__":
    sys.exit(main())
