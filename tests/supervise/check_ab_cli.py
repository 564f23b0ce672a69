"""`kerntime ab` end to end without a GPU: cpu_suite (a real kerntime program) is the supervisor,
and the programs A and B are the stand-in worker (stand_in_worker.cpp) behind small scripts that
set its states and its speed. Each test runs the real command and reads what it wrote: A/A is
same, a slower B is slower and fails the gate, one-sided states are listed, a crash or a hang
fails its state for that side while the run goes on, and bad input exits 2 before anything runs.
Usage: check_ab_cli.py CPU_SUITE STAND_IN_WORKER"""

import csv
import json
import pathlib
import stat
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SUITE = sys.argv.pop(1) if len(sys.argv) > 2 else None
STAND_IN = sys.argv.pop(1) if len(sys.argv) > 1 else None


class ab_command(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.folder.name)

    def tearDown(self):
        self.folder.cleanup()

    def program(self, name, states="ok/n=1,ok/n=2", scale=1.0, env=""):
        path = self.dir / name
        path.write_text(f"#!/bin/sh\nSTAND_IN_STATES='{states}' STAND_IN_SCALE={scale} {env} "
                        f"exec '{STAND_IN}' \"$@\"\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def ab(self, *args, timeout=120):
        return subprocess.run([SUITE, "ab", *args], capture_output=True, text=True, timeout=timeout)

    def test_the_same_program_twice_is_same(self):
        a = self.program("a")
        out = self.dir / "ab.json"
        done = self.ab(a, a, "--json", str(out))
        self.assertEqual(done.returncode, 0, done.stderr)
        c = json.loads(out.read_text())
        self.assertEqual([s["state_name"] for s in c["states"]], ["ok/n=1", "ok/n=2"])
        self.assertEqual({s["verdict"] for s in c["states"]}, {"same"})
        self.assertIn("2 states compared", done.stderr)
        # No decision before 6 rounds (--min-rounds); every round is a fresh process pair running
        # one block of each undecided state, so both states decide in the sixth round's pair.
        self.assertIn("12 worker processes", done.stderr)
        self.assertEqual({s["base_units"] for s in c["states"]}, {6})
        self.assertEqual({s["unit"] for s in c["states"]}, {"process pairs"})
        self.assertIn("settled", done.stderr)
        kept = self.ab(a, a, "--keep-workers", "--json", str(out), "-q")
        self.assertEqual(kept.returncode, 0, kept.stderr)
        self.assertIn("2 worker processes", kept.stderr)
        self.assertEqual({s["unit"] for s in json.loads(out.read_text())["states"]}, {"blocks"})
        self.assertIn("A/B: A = ", done.stdout)

    def test_a_slower_b_fails_the_gate_and_every_file_is_written(self):
        a = self.program("a")
        b = self.program("b", scale=1.05)
        files = {flag: self.dir / name for flag, name in
                 [("--json", "ab.json"), ("--junit", "ab.xml"), ("--csv", "ab.csv"),
                  ("--html", "ab.html"), ("--results-a", "a.json"), ("--results-b", "b.json")]}
        args = [x for flag, path in files.items() for x in (flag, str(path))]
        done = self.ab(a, b, *args)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("B is slower than A", done.stderr)
        c = json.loads(files["--json"].read_text())
        for s in c["states"]:
            self.assertEqual(s["verdict"], "slower")
            self.assertAlmostEqual(s["ratio"], 1.05, delta=0.005)
            self.assertGreater(s["ratio_low"], 1.01)
        failures = ET.parse(files["--junit"]).getroot().iter("failure")
        self.assertEqual(len(list(failures)), 2)
        with files["--csv"].open() as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2)
        self.assertIn("<svg", files["--html"].read_text())
        # Each side's result set reads like any run's: compare sees the same change.
        side_a = json.loads(files["--results-a"].read_text())
        self.assertEqual(side_a["runs"][0]["status"], "ok")
        self.assertGreaterEqual(len(side_a["runs"][0]["result"]["trials"]), 6)
        compared = subprocess.run([SUITE, "compare", str(files["--results-a"]),
                                   str(files["--results-b"]), "-q"],
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(compared.returncode, 1, compared.stderr)

    def test_states_on_one_side_are_listed_and_plan_indices_are_each_sides(self):
        a = self.program("a", states="ok/n=1,ok/n=2")
        b = self.program("b", states="ok/n=2,ok/n=3")
        out = self.dir / "ab.json"
        done = self.ab(a, b, "--json", str(out), "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        c = json.loads(out.read_text())
        self.assertEqual(c["only_in_base"], ["ok/n=1"])
        self.assertEqual(c["only_in_new"], ["ok/n=3"])
        # ok/n=2 is plan index 1 in A (1100 ns) and 0 in B (1000 ns): each worker got its own.
        (state,) = c["states"]
        self.assertEqual(state["verdict"], "faster")
        self.assertAlmostEqual(state["ratio"], 1000 / 1100, delta=0.005)

    def test_a_crash_fails_its_state_and_the_run_goes_on_in_a_fresh_worker(self):
        a = self.program("a", states="ok/n=1,crash/x,ok/n=2")
        out = self.dir / "ab.json"
        side = self.dir / "a.json"
        done = self.ab(a, a, "--json", str(out), "--results-a", str(side), "-q")
        self.assertEqual(done.returncode, 1, done.stderr)
        c = json.loads(out.read_text())
        self.assertEqual([s["state_name"] for s in c["states"]], ["ok/n=1", "ok/n=2"])
        self.assertEqual(len(c["not_compared"]), 1)
        self.assertIn("crash/x: A: crashed the worker: signal 11", c["not_compared"][0])
        runs = {r["state_name"]: r for r in json.loads(side.read_text())["runs"]}
        self.assertEqual(runs["crash/x"]["status"], "failed")
        self.assertEqual(runs["crash/x"]["error_kind"], "crashed")
        self.assertIn("1 of 3 states failed on a side", done.stderr)

    def test_a_hang_is_timed_out_for_its_side(self):
        a = self.program("a", states="hang/x,ok/n=1")
        out = self.dir / "ab.json"
        done = self.ab(a, a, "--json", str(out), "--state-timeout", "1", "-q")
        self.assertEqual(done.returncode, 1, done.stderr)
        c = json.loads(out.read_text())
        self.assertIn("hang/x: A: timed_out after 1 s", c["not_compared"][0])
        self.assertEqual([s["verdict"] for s in c["states"]], ["same"])

    def test_workers_can_be_kept_for_the_whole_run(self):
        a = self.program("a")
        done = self.ab(a, a, "--keep-workers", "--vary-placement", "off", "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("2 worker processes", done.stderr)

    def test_each_placement_choice_reaches_the_workers(self):
        # on: each preparation's pad; all: the pad and a flush buffer made afresh after it (the
        # worker frees its kept one first); off: neither.
        for choice, seen in (("on", "inputs"), ("all", "all"), ("off", "none")):
            log = self.dir / f"starts_{choice}.log"
            a = self.program(f"placed_{choice}", env=f"STAND_IN_LOG='{log}'")
            done = self.ab(a, a, "--vary-placement", choice, "--min-rounds", "2", "-q")
            self.assertEqual(done.returncode, 0, done.stderr)
            starts = [line for line in log.read_text().splitlines() if line.startswith("start ")]
            self.assertTrue(starts, choice)
            self.assertEqual({line.rsplit("placement=", 1)[1] for line in starts}, {seen}, choice)

    def test_the_reference_runs_on_one_stream_per_worker_where_both_sides_measure_it(self):
        # The stand-ins report a reference where STAND_IN_REFERENCE names one (a kerntime
        # program reports its library's); every round then measures it before the states, and
        # every worker is told to measure on one stream.
        log = self.dir / "reference.log"
        a = self.program("referenced", env=f"STAND_IN_LOG='{log}' STAND_IN_REFERENCE='ref 1'")
        out = self.dir / "ab.json"
        done = self.ab(a, a, "--json", str(out), "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = log.read_text().splitlines()
        starts = [line for line in lines if line.startswith("start ")]
        self.assertTrue(starts)
        self.assertTrue(all(" stream=one " in line for line in starts), starts)
        # Six rounds, four reference trials per side in each.
        self.assertEqual(sum(line.startswith("reference ") for line in lines), 6 * 8)
        self.assertIn("reference (kerntime's 16 one-warp launches, the same code on both sides) "
                      "measured in 6 process pairs", done.stderr)
        for state in json.loads(out.read_text())["states"]:
            # Rounds 5 and 6 were adjusted (a slope is known from 4 earlier rounds).
            self.assertIsNotNone(state["unit_sd_adjusted"], state)
            self.assertIsNotNone(state["reference_beta"], state)
            self.assertTrue(any("2 of its 6 process pairs adjusted" in n for n in state["notes"]),
                            state["notes"])
        # --reference 0: no reference, nothing said of it; --streams fresh: no shared stream.
        log.unlink()
        off = self.ab(a, a, "--reference", "0", "--streams", "fresh", "-q")
        self.assertEqual(off.returncode, 0, off.stderr)
        lines = log.read_text().splitlines()
        self.assertFalse(any(line.startswith("reference ") for line in lines))
        self.assertFalse(any("stream=one" in line for line in lines))
        self.assertNotIn("kerntime: reference", off.stderr)
        self.assertNotIn("no reference measured", off.stderr)
        # A program that measures none: the run says so and reads the states as measured.
        plain = self.program("plain")
        older = self.ab(plain, plain, "-q")
        self.assertEqual(older.returncode, 0, older.stderr)
        self.assertIn("no reference measured: neither side's worker measures one", older.stderr)

    def test_a_reference_that_reads_apart_on_the_two_sides_is_warned_of(self):
        # B's processes all sit in a mode that slows the reference by 5 % and no state: the
        # premise (the same code reads B/A 1) fails, and the run says so from its 10th round.
        a = self.program("ref_a", env="STAND_IN_REFERENCE='ref 1'")
        b = self.program("ref_b", env="STAND_IN_REFERENCE='ref 1' STAND_IN_MODE=1,0.05 "
                                     "STAND_IN_MODE_SLOPE=0")
        done = self.ab(a, b, "--min-rounds", "10", "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("measured in 10 process pairs", done.stderr)
        self.assertRegex(done.stderr, r"B/A 1\.0[45]\d\d \[")
        self.assertIn("warning: the reference's interval leaves out 1", done.stderr)
        self.assertIn("--reference 0", done.stderr)
        # Six rounds are too few to warn on.
        early = self.ab(a, b, "-q")
        self.assertNotIn("warning: the reference", early.stderr)

    def test_max_pairs_ends_a_state_inconclusive(self):
        a = self.program("a")
        b = self.program("b", scale=1.01)  # on the band's edge
        out = self.dir / "ab.json"
        # Two rounds: two observations bound nothing, so no verdict can come before the limit.
        done = self.ab(a, b, "--json", str(out), "--max-pairs", "4", "--min-rounds", "0", "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        c = json.loads(out.read_text())
        self.assertEqual({s["verdict"] for s in c["states"]}, {"inconclusive"})
        strict = self.ab(a, b, "--max-pairs", "4", "--min-rounds", "0", "--fail-on-inconclusive",
                         "-q")
        self.assertEqual(strict.returncode, 1, strict.stderr)
        self.assertIn("stayed inconclusive", strict.stderr)

    def test_a_state_too_spread_to_settle_stops_early_unless_run_to_the_limits(self):
        # Trials scattered by 12 %: at ±1 % even a ratio of 1 would need thousands of rounds, far
        # beyond twice the 20 that --max-pairs 40 allows, and no band up to ±5 % is in reach
        # either; the state stops from its 10th round. The stand-ins' noise is drawn afresh in
        # every run, so alpha is 0.001: a false verdict at the 5 % default came once in ~40 runs.
        a = self.program("a", states="ok/n=1", env="STAND_IN_NOISE=0.12")
        out = self.dir / "ab.json"
        done = self.ab(a, a, "--json", str(out), "--max-pairs", "40", "--alpha", "0.001", "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        [state] = json.loads(out.read_text())["states"]
        self.assertEqual(state["verdict"], "inconclusive")
        self.assertTrue(10 <= state["base_units"] < 20, state)
        self.assertTrue(any("spread so widely" in n and "more than 40 of them" in n
                            for n in state["notes"]), state["notes"])
        # How many would settle it at the ratio reached: none where the mean (12 % noise over ~10
        # rounds spreads it by ~4 %) happens to sit on the band's edge.
        if state["units_needed"] is not None:
            self.assertGreater(state["units_needed"], 40)
        to_limits = self.ab(a, a, "--json", str(out), "--max-pairs", "40", "--alpha", "0.001", "--run-to-limits",
                            "-q")
        self.assertEqual(to_limits.returncode, 0, to_limits.stderr)
        [state] = json.loads(out.read_text())["states"]
        self.assertEqual((state["verdict"], state["base_units"]), ("inconclusive", 20))
        self.assertTrue(any("--max-pairs reached" in n for n in state["notes"]), state["notes"])

    def test_a_state_whose_preparations_spread_runs_more_blocks_and_the_run_says_so(self):
        # 2 % a trial on its own, a pair's exit 40 ms: from round 5 its rounds run more blocks,
        # which its notes and the run's last lines name (ab_run_test checks the choice itself).
        a = self.program("a", states="ok/n=1", env="STAND_IN_NOISE=0.02 STAND_IN_EXIT_MS=40")
        out = self.dir / "ab.json"
        done = self.ab(a, a, "--json", str(out), "--alpha", "0.001", "-q")
        self.assertEqual(done.returncode, 0, done.stderr)
        [state] = json.loads(out.read_text())["states"]
        self.assertIn(state["verdict"], ("same", "inconclusive"))
        self.assertTrue(any(n.startswith("its rounds ran 1 to ") for n in state["notes"]),
                        state["notes"])
        self.assertRegex(done.stderr, r"1 state whose own preparations spread ran more blocks in "
                                      r"a round \(--most-pairs-per-round; [^)]*\): ok/n=1 \(\d+ "
                                      r"blocks in \d+ rounds\)")
        one = self.ab(a, a, "--most-pairs-per-round", "2", "--alpha", "0.001", "-q")
        self.assertNotIn("ran more blocks", one.stderr)

    def test_a_state_spread_beyond_the_band_is_judged_at_the_band_its_spread_can_settle(self):
        # Trials scattered by 2 %: at alpha 0.001 ±1 % would take ~85 rounds, beyond the 50 that
        # --max-pairs 100 allows, so from round 10 the state goes on at a band of a few per cent,
        # says so in band_reason and the run's last lines, and an A/A run is not called changed
        # (alpha 0.001: the stand-ins' noise is drawn afresh in every run).
        a = self.program("a", states="ok/n=1", env="STAND_IN_NOISE=0.02")
        out = self.dir / "ab.json"
        # One block a round: more (--most-pairs-per-round) would divide a trial's own spread.
        flags = ["--max-pairs", "100", "--alpha", "0.001", "--most-pairs-per-round", "2", "-q"]
        done = self.ab(a, a, "--json", str(out), *flags)
        self.assertEqual(done.returncode, 0, done.stderr)
        [state] = json.loads(out.read_text())["states"]
        self.assertIn(state["verdict"], ("same", "inconclusive"))
        self.assertTrue(0.01 < state["band"] <= 0.05, state)
        self.assertTrue(state["band_reason"].startswith("spread floor: its process pairs spread"),
                        state["band_reason"])
        self.assertIn("`slower` and `faster` still at ±1 %", state["band_reason"])
        if state["verdict"] == "same":
            self.assertIn("1 state spread too widely for ±1 % and was judged `same`", done.stderr)
        strict = self.ab(a, a, "--fail-on-inconclusive", *flags)
        self.assertEqual(strict.returncode, 1, strict.stderr)
        self.assertRegex(strict.stderr, r"(0 states stayed inconclusive and 1|1 state stayed "
                                        r"inconclusive and 0) settled only at a wider band")
        to_limits = self.ab(a, a, "--json", str(out), "--run-to-limits", *flags)
        self.assertEqual(to_limits.returncode, 0, to_limits.stderr)
        [state] = json.loads(out.read_text())["states"]
        self.assertEqual((state["band"], state["band_reason"]), (0.01, "threshold"))
        # To the limit at ±1 % (a `same` there by chance ends it sooner: rare at this alpha).
        self.assertIn(state["verdict"], ("same", "inconclusive"))
        if state["verdict"] == "inconclusive":
            self.assertEqual(state["base_units"], 50)

    def test_a_gpu_no_worker_can_use_exits_3_with_the_reason_and_writes_nothing(self):
        a = self.program("a", env="STAND_IN_UNUSABLE='the GPU is in exclusive mode'")
        out = self.dir / "ab.json"
        done = self.ab(a, a, "--json", str(out), "-q")
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertIn("the GPU is in exclusive mode", done.stderr)
        self.assertFalse(out.exists())

    def test_a_program_whose_workers_refuse_the_run_flags_is_bad_input(self):
        # It answers its plan query, but its workers refuse a flag (a program built with another
        # kerntime): exit 2 with its words, not a device given up (exit 3).
        older = self.dir / "older"
        older.write_text("#!/bin/sh\n"
                         f"if [ \"$1\" = list ]; then STAND_IN_STATES='ok/n=1,ok/n=2' exec '{STAND_IN}' \"$@\"; fi\n"
                         "echo 'kerntime: error: The following argument was not expected: "
                         "--cuda-graph' >&2\nexit 2\n")
        older.chmod(0o755)
        a = self.program("a")
        done = self.ab(a, str(older), "-q")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("refused the run's flags", done.stderr)
        self.assertIn("--cuda-graph", done.stderr)

    def test_a_program_that_is_no_kerntime_program_is_named_so(self):
        usage = self.dir / "usage"
        usage.write_text("#!/bin/sh\necho 'usage: usage [-h]' >&2\nexit 2\n")
        usage.chmod(0o755)
        endless = self.dir / "endless"
        endless.write_text("#!/bin/sh\nexec yes\n")
        endless.chmod(0o755)
        a = self.program("a")
        for program, message in [(usage, "usage: usage [-h]"), (endless, "printed more than")]:
            with self.subTest(program=program.name):
                done = self.ab(a, str(program))
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertIn(f"B_PROGRAM {program} is not a kerntime program", done.stderr)
                self.assertIn(message, done.stderr)

    def test_bad_input_exits_2_before_anything_runs(self):
        a = self.program("a")
        other = self.program("other", states="ok/n=7,ok/n=8")
        cases = [
            (["/bin/true", a], "A_PROGRAM /bin/true is not a kerntime program"),
            ([a, str(self.dir / "missing")], "B_PROGRAM"),
            ([a, "no-such-program-on-path"], "neither a file nor a program on PATH"),
            ([a, other], "no state in common"),
            ([a, a, "--max-pairs", "1"], "--max-pairs 1"),
            ([a, a, "--max-pairs", "9"], "--max-pairs 9: give a multiple of --pairs-per-round (2)"),
            ([a, a, "--threshold", "0"], "--threshold 0"),
            ([a, a, "--min-rounds", "200"], "--min-rounds 200"),
            ([a, a, "--pairs-per-round", "3"], "--pairs-per-round 3"),
            ([a, a, "--pairs-per-round", "0"], "--pairs-per-round 0"),
            ([a, a, "--most-pairs-per-round", "3"], "--most-pairs-per-round 3: give an even"),
            ([a, a, "--pairs-per-round", "4", "--most-pairs-per-round", "2"],
             "at least --pairs-per-round (4)"),
            ([a, a, "--vary-placement", "maybe"], "--vary-placement maybe"),
            ([a, a, "--reference", "3"], "--reference 3: give an even number"),
            ([a, a, "--reference", "-2"], "--reference -2"),
            ([a, a, "--streams", "two"], "--streams two is neither one nor fresh"),
            ([a, a, "--trials", "5"], "drop --trials"),
            ([a, a, "--stop-at-ci", "0.5"], "drop --stop-at-ci"),
            ([a, a, "--repeat", "0"], "--repeat"),
            ([a, a, "--cuda-graph", "both"], "run ab once each way"),
            ([a, a, "--json", a], "A_PROGRAM"),
            ([a], "2 required"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                done = self.ab(*args)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertIn(message, done.stderr)
                self.assertNotIn("worker process", done.stderr)


if __name__ == "__main__":
    unittest.main()
