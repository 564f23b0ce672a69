"""CPU end-to-end run of bench/accuracy/run.sh with fake `kerntime` and `ncu` (no GPU, no torch):
checks that the study runs every step, survives the missing pieces (nvidia-smi, torch) and
writes its four files with a report and a summary.

    python3 bench/accuracy/tests/test_study_e2e.py
"""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(os.path.dirname(HERE), "run.sh")


class StudyEndToEnd(unittest.TestCase):
    def test_runs_with_fake_tools(self):
        with tempfile.TemporaryDirectory() as tmp:
            build = os.path.join(tmp, "build")
            os.makedirs(build)
            kerntime = os.path.join(build, "kerntime")
            with open(kerntime, "w") as f:
                f.write(f"#!/bin/sh\nexec {sys.executable} {HERE}/fake_kerntime.py \"$@\"\n")
            os.chmod(kerntime, os.stat(kerntime).st_mode | stat.S_IEXEC)
            out = os.path.join(tmp, "out")
            env = dict(os.environ, OUT=out, KT_ACCURACY_NCU=os.path.join(HERE, "fake_ncu.py"),
                       KT_ACCURACY_BUDGET="120", KT_ACCURACY_PYTHON=sys.executable)
            done = subprocess.run(["bash", RUN, build], env=env, capture_output=True, text=True,
                                  timeout=300)
            self.assertEqual(done.returncode, 0, done.stdout[-3000:] + done.stderr[-3000:])
            self.assertEqual(sorted(os.listdir(out)),
                             ["accuracy.json", "accuracy.md", "raw.tar.gz", "run.log"])
            self.assertIn("ACCURACY SUMMARY", done.stdout.splitlines()[-7:][0] +
                          "\n".join(done.stdout.splitlines()[-8:]))
            with open(os.path.join(out, "accuracy.json"), encoding="utf-8") as f:
                data = json.load(f)
            ids = {c["id"] for c in data["cases"]}
            self.assertIn("spin/duration_us=100", ids)
            self.assertIn("radix_sort/elements=67108864", ids)
            radix = next(c for c in data["cases"] if c["id"] == "radix_sort/elements=67108864")
            self.assertTrue(radix["kernel_match"]["same"], radix["kernel_match"])
            self.assertEqual(radix["ncu"]["kernels_per_iteration"], 5)
            spin = next(c for c in data["cases"] if c["id"] == "spin/duration_us=100")
            self.assertIsNotNone(spin["rel_diff_vs_ncu"])
            evaluated = {row["target"]: row["evaluated"] for row in data["target_summary"]}
            self.assertEqual(evaluated["spin"], 4)
            self.assertGreater(evaluated["ncu_1pct"], 0)
            self.assertGreater(evaluated["wall"], 0)
            self.assertEqual(len(data["repeatability"]), 2)
            print("\n".join(done.stdout.splitlines()[-12:]))


if __name__ == "__main__":
    unittest.main(verbosity=1)
