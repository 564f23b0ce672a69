"""`kerntime run` supervised, end to end without a GPU, over cpu_suite (a real kerntime program
whose benchmarks skip, crash, hang and throw): each state gets its record and reason, the states
after a crash and a hang still run, in a fresh worker, and the supervisor writes every report.
Usage: check_supervised_cli.py CPU_SUITE"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import unittest

SUITE = sys.argv.pop(1) if len(sys.argv) > 1 else None


def run(*args, timeout=60):
    return subprocess.run([SUITE, *args], capture_output=True, text=True, timeout=timeout)


class supervised_run(unittest.TestCase):
    def test_a_crash_and_a_hang_fail_their_states_only(self):
        with tempfile.TemporaryDirectory() as folder:
            out = pathlib.Path(folder) / "run.json"
            junit = pathlib.Path(folder) / "run.xml"
            start = time.monotonic()
            done = run("run", "--state-timeout", "2", "--json", str(out), "--junit", str(junit))
            seconds = time.monotonic() - start
            self.assertEqual(done.returncode, 1, done.stderr)
            runs = json.loads(out.read_text())["runs"]
            by_name = {r["state_name"]: r for r in runs}
            self.assertEqual([r["state_name"] for r in runs],
                             ["fine/n=1", "fine/n=2", "crashes", "hangs", "throws"])
            self.assertEqual([r["plan_index"] for r in runs], [0, 1, 2, 3, 4])
            self.assertEqual(by_name["fine/n=1"]["status"], "skipped")
            self.assertEqual(by_name["crashes"]["error_kind"], "crashed")
            self.assertIn("crashed: signal 11 (SIGSEGV)", by_name["crashes"]["message"])
            self.assertEqual(by_name["hangs"]["error_kind"], "timed_out")
            self.assertIn("timed_out after 2 s", by_name["hangs"]["message"])
            # Its own error: the worker lives on (same pid as the states before the crash? no:
            # after the hang a fresh worker runs it).
            self.assertEqual(by_name["throws"]["error_kind"], "error")
            self.assertIn("a benchmark's own error", by_name["throws"]["message"])
            pid = lambda name: by_name[name]["message"].rsplit(" ", 1)[-1]
            self.assertEqual(pid("fine/n=1"), pid("fine/n=2"))  # one worker while healthy
            self.assertIn("3 of 5 states failed", done.stderr)
            self.assertIn("3 worker processes", done.stderr)
            self.assertIn("crashes crashed the worker", done.stderr)
            self.assertIn('name="hangs"', junit.read_text())
            self.assertLess(seconds, 30)

    def test_states_after_a_crash_run_in_a_fresh_worker(self):
        done = run("run", "--filter", "fine/n=1|crashes|fine/n=2", "-q")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("1 of 3 states failed", done.stderr)

    def test_a_gpu_no_worker_can_use_exits_3_with_the_reason_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            out = pathlib.Path(folder) / "run.json"
            env = dict(os.environ, CPU_SUITE_NO_CONTEXT="the GPU is in exclusive mode, held by pid 7")
            done = subprocess.run([SUITE, "run", "--json", str(out), "-q"], capture_output=True,
                                  text=True, timeout=60, env=env)
            self.assertEqual(done.returncode, 3, done.stderr)
            self.assertIn("exclusive mode, held by pid 7", done.stderr)
            self.assertFalse(out.exists())

    def test_the_supervisor_checks_the_device_beside_its_worker_and_names_a_gpu_none_could_use(self):
        # Before its worker starts the supervisor asks only whether a driver loads; the whole
        # check (CUDA's initialisation) runs once in the worker and once in the supervisor,
        # beside the worker's start.
        with tempfile.TemporaryDirectory() as folder:
            checks = pathlib.Path(folder) / "checks"
            env = dict(os.environ, CPU_SUITE_DEVICE_CHECKS=str(checks))
            done = subprocess.Popen([SUITE, "run", "--filter", "fine", "-q"], env=env,
                                    stderr=subprocess.PIPE, text=True)
            _, err = done.communicate(timeout=60)
            self.assertEqual(done.returncode, 0, err)
            pids = checks.read_text().split()
            self.assertEqual(len(pids), 2, pids)  # the supervisor and its one worker
            self.assertEqual(pids.count(str(done.pid)), 1, pids)
            self.assertRegex(err, r"1 worker process \([\d.]+ s to start, [\d.]+ s to exit, in all\)")
            # A GPU that is there but unusable: the workers say so, then the supervisor's own
            # check names it in one last line, and the run exits 3 writing nothing.
            out = pathlib.Path(folder) / "run.json"
            env = dict(os.environ, CPU_SUITE_NO_DEVICE="no CUDA device found: the driver reports 0 devices")
            done = subprocess.run([SUITE, "run", "--json", str(out), "-q"], capture_output=True,
                                  text=True, timeout=60, env=env)
            self.assertEqual(done.returncode, 3, done.stderr)
            self.assertTrue(done.stderr.endswith(
                "kerntime: no CUDA device found: the driver reports 0 devices\n"), done.stderr)
            self.assertFalse(out.exists())

    def test_no_isolation_runs_in_this_process(self):
        done = run("run", "--no-isolation", "--filter", "fine", "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("worker process", done.stderr)

    def test_contradicting_or_hand_made_settings_are_bad_input(self):
        done = run("run", "--devices", "0", "--no-isolation")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("drop one of them", done.stderr)
        done = subprocess.run([SUITE, "run"], capture_output=True, text=True, timeout=60,
                              env={"KERNTIME_WORKER_CHANNEL": "x", "PATH": "/usr/bin:/bin"})
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("is not a worker channel", done.stderr)

    def test_a_shard_runs_its_slice_and_records_it(self):
        with tempfile.TemporaryDirectory() as folder:
            files = []
            for index in range(2):
                out = pathlib.Path(folder) / f"shard-{index}.json"
                run("run", "--filter", "fine|throws", "--shard", f"{index}/2", "--json", str(out),
                    "-q")
                files.append(out)
                context = json.loads(out.read_text())["context"]
                self.assertEqual(context["shard"], {"index": index, "count": 2})
                self.assertEqual(context["plan_states"], 3)
            merged = pathlib.Path(folder) / "merged.json"
            done = run("merge", str(files[1]), str(files[0]), "--json", str(merged), "-q")
            self.assertEqual(done.returncode, 1, done.stderr)  # `throws` failed in a shard
            names = [r["state_name"] for r in json.loads(merged.read_text())["runs"]]
            self.assertEqual(names, ["fine/n=1", "fine/n=2", "throws"])
            again = run("merge", str(files[0]), str(files[0]), "--json", str(merged))
            self.assertEqual(again.returncode, 2)
            self.assertIn("are both shard 0/2", again.stderr)


if __name__ == "__main__":
    unittest.main()
