"""The `kerntime` console command of the Python package: it runs the kerntime binary that the
wheel carries next to this module (kerntime/bin/kerntime; in a build folder, a link to the
build's binary), with the same arguments, output and exit code.

A wheel built where the command's headers (CLI11, Boost) were missing has no binary; the command
then says so in one line and exits 2.
"""

import os
import sys
from pathlib import Path
from typing import Optional, Sequence

NO_COMMAND_EXIT_CODE = 2
NO_COMMAND_MESSAGE = (
    "kerntime: this installation has no kerntime command (it was built without CLI11's, Boost's "
    "or RE2's headers); install them (Debian/Ubuntu: apt-get install libcli11-dev libboost-dev "
    "libre2-dev) and "
    "reinstall kerntime (pip install --no-build-isolation --force-reinstall .)")


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
