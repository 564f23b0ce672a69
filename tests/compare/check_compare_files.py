"""`kerntime compare`'s files read by strict third-party parsers: the JUnit XML by the standard
library's XML parser (a testcase per state, one failure per regression, skipped for states on one
side only), the CSV by the csv module, the JSON by json. The base and new results are the real
H200 fixtures in data/, the new one slowed by 5 % in one state to make a regression."""

import csv
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
KERNTIME = os.environ.get("KERNTIME_COMMAND", "")


@unittest.skipUnless(os.path.exists(KERNTIME), "KERNTIME_COMMAND is not a built kerntime")
class compare_files(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        with open(os.path.join(HERE, "data", "h200_run2.json")) as f:
            new = json.load(f)
        for run in new["runs"]:
            if run["state_name"] == "spin/duration_us=10":
                for trial in run["result"]["trials"]:
                    trial["span_ns"] = [v * 1.05 for v in trial["span_ns"]]
                    trial["busy_ns"] = [v * 1.05 for v in trial["busy_ns"]]
        new["runs"] = [r for r in new["runs"] if r["state_name"] != "gemm_bf16/size=4096"]
        self.new = os.path.join(self.folder.name, "new.json")
        with open(self.new, "w") as f:
            json.dump(new, f)

    def tearDown(self):
        self.folder.cleanup()

    def test_every_file_parses_and_says_the_same(self):
        paths = {kind: os.path.join(self.folder.name, "compare." + kind)
                 for kind in ("xml", "csv", "json")}
        done = subprocess.run(
            [KERNTIME, "compare", os.path.join(HERE, "data", "h200_run1.json"), self.new,
             "--junit", paths["xml"], "--csv", paths["csv"], "--json", paths["json"], "--quiet"],
            capture_output=True, text=True)
        self.assertEqual(done.returncode, 1, done.stderr)

        suite = ElementTree.parse(paths["xml"]).getroot().find("testsuite")
        cases = {case.get("name"): case for case in suite.iter("testcase")}
        self.assertEqual(suite.get("tests"), str(len(cases)))
        self.assertEqual(len(cases), 4)
        self.assertIsNotNone(cases["spin/duration_us=10"].find("failure"))
        self.assertIsNotNone(cases["gemm_bf16/size=4096"].find("skipped"))
        self.assertEqual(sum(case.find("failure") is not None for case in cases.values()), 1)

        with open(paths["csv"], newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["verdict"] for r in rows if r["state"] == "spin/duration_us=10"],
                         ["slower"])

        with open(paths["json"]) as f:
            document = json.load(f)
        self.assertTrue(document["regression"])
        self.assertEqual(document["only_in_base"], ["gemm_bf16/size=4096"])
        self.assertEqual({s["state_name"]: s["verdict"] for s in document["states"]},
                         {r["state"]: r["verdict"] for r in rows})

    @unittest.skipUnless(shutil.which("xmllint"), "xmllint missing: install libxml2-utils")
    def test_xunit2_is_valid_against_junit_10_xsd_and_xunit1_is_not(self):
        schema = os.path.join(HERE, "..", "report", "data", "junit-10.xsd")
        for family, valid in (("xunit2", True), ("xunit1", False)):
            xml = os.path.join(self.folder.name, family + ".xml")
            done = subprocess.run(
                [KERNTIME, "compare", os.path.join(HERE, "data", "h200_run1.json"), self.new,
                 "--junit", xml, "--junit-family", family, "--quiet"],
                capture_output=True, text=True)
            self.assertEqual(done.returncode, 1, done.stderr)
            check = subprocess.run(["xmllint", "--noout", "--schema", schema, xml],
                                   capture_output=True, text=True)
            self.assertEqual(check.returncode == 0, valid, family + ": " + check.stderr[-500:])
            suite = ElementTree.parse(xml).getroot().find("testsuite")
            names = [p.get("name") for p in suite.iter("property")]
            if family == "xunit2":
                self.assertIn("spin/duration_us=10.verdict", names)
                for case in suite.iter("testcase"):
                    self.assertIsNone(case.find("properties"))


if __name__ == "__main__":
    unittest.main()
