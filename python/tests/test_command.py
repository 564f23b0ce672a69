"""The `kerntime` console command (kerntime.command): it runs the binary the package carries with
the caller's arguments and exit code, and says how to get one where the package has none."""

import subprocess
import sys

import pytest

from kerntime import command


def run_main_with_command_at(path, *arguments):
    """Runs command.main in a child Python (it replaces its process), the binary looked up at path."""
    code = ("import sys, pathlib; from kerntime import command; "
            "command.command_path = lambda: pathlib.Path(sys.argv[1]); "
            "sys.exit(command.main(sys.argv[2:]))")
    return subprocess.run([sys.executable, "-c", code, str(path), *arguments],
                          capture_output=True, text=True, timeout=60)


def test_without_a_binary_it_says_in_one_line_how_to_get_one_and_exits_2(monkeypatch, tmp_path,
                                                                          capsys):
    monkeypatch.setattr(command, "command_path", lambda: tmp_path / "bin" / "kerntime")
    assert command.main(["list"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("kerntime: this installation has no kerntime command")
    assert "libcli11-dev libboost-dev libre2-dev" in captured.err
    assert "reinstall" in captured.err


def test_it_runs_the_binary_with_the_arguments_and_hands_back_its_output_and_exit_code(tmp_path):
    binary = tmp_path / "kerntime"
    binary.write_text('#!/bin/sh\necho "arguments: $*"\necho "to stderr" >&2\nexit 7\n')
    binary.chmod(0o755)
    finished = run_main_with_command_at(binary, "list", "--filter", "copy/.*")
    assert finished.returncode == 7
    assert finished.stdout == "arguments: list --filter copy/.*\n"
    assert finished.stderr == "to stderr\n"


def test_a_file_that_cannot_be_run_counts_as_no_binary(tmp_path):
    binary = tmp_path / "kerntime"
    binary.write_text("not a program\n")
    finished = run_main_with_command_at(binary, "list")
    assert finished.returncode == 2
    assert "has no kerntime command" in finished.stderr


def test_python_m_kerntime_command_lists_the_bundled_suite_with_the_packaged_binary():
    if not command.command_path().exists():
        pytest.skip(f"this kerntime package has no command ({command.command_path()} is missing: "
                    "built with KERNTIME_BUILD_CLI=OFF)")
    finished = subprocess.run([sys.executable, "-m", "kerntime.command", "list"],
                              capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0, finished.stderr
    assert "copy/bytes=1048576/l2=cold" in finished.stdout
