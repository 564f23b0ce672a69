"""Reads the golden reports with strict third-party parsers.

The C++ report tests prove that the files in golden/ are exactly what the writers print; this
checks that the tools CI and users rely on accept them: the JSON against its JSON Schema, the
JUnit XML with ElementTree, the CSV with the csv module, the trace as trace-event JSON.
"""

import csv
import io
import json
import os
import unittest
import xml.etree.ElementTree as ElementTree

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
SCHEMA = os.environ.get(
    "KERNTIME_SCHEMA",
    os.path.join(os.path.dirname(GOLDEN), "..", "..", "docs", "schema", "kerntime.schema.json"),
)


def load(name):
    with open(os.path.join(GOLDEN, name), encoding="utf-8", newline="") as f:
        return f.read()


def xml_text(name):
    """What an XML reader gives back for a name kerntime escaped: forbidden controls -> U+FFFD."""
    return "".join(
        "\ufffd" if (ord(c) < 0x20 and c not in "\t\n\r") or c in "\ufffe\uffff" else c
        for c in name
    )


class JsonReport(unittest.TestCase):
    def test_validates_against_schema(self):
        import jsonschema  # Debian: python3-jsonschema

        with open(SCHEMA, encoding="utf-8") as f:
            schema = json.load(f)
        validator = jsonschema.Draft202012Validator(schema)
        validator.check_schema(schema)
        document = json.loads(load("report.json"))
        validator.validate(document)

        # The schema must be able to reject: a missing sample array and a wrong status.
        broken = json.loads(load("report.json"))
        del broken["runs"][0]["result"]["trials"][0]["span_ns"]
        self.assertFalse(validator.is_valid(broken))
        broken = json.loads(load("report.json"))
        broken["runs"][1]["status"] = "ok"
        self.assertFalse(validator.is_valid(broken))

        # The counters block: a status it does not know, a measured block without its kernels,
        # a reason outside an unavailable block.
        counters = [
            run["result"]["counters"] for run in document["runs"] if run["result"] is not None
        ]
        self.assertEqual(
            {c["status"] for c in counters}, {"not_requested", "measured", "unavailable"}
        )
        measured = next(i for i, c in enumerate(counters) if c["status"] == "measured")
        ok_runs = [i for i, run in enumerate(document["runs"]) if run["result"] is not None]
        for edit in (
            lambda c: c.update(status="half_measured"),
            lambda c: c.pop("kernels"),
            lambda c: c.update(reason="why not"),
            lambda c: c["derived"].update(bound="latency"),
        ):
            broken = json.loads(load("report.json"))
            edit(broken["runs"][ok_runs[measured]]["result"]["counters"])
            self.assertFalse(validator.is_valid(broken))


class JunitReport(unittest.TestCase):
    def test_parses_and_names_round_trip(self):
        root = ElementTree.fromstring(load("report.junit.xml").encode("utf-8"))
        suite = root.find("testsuite")
        cases = suite.findall("testcase")
        self.assertEqual(len(cases), 6)
        self.assertEqual(cases[0].get("classname"), "gemm_bf16")
        self.assertEqual(cases[0].get("name"), "gemm_bf16/M=4096/N=4096")

        properties = {p.get("name"): p.get("value") for p in cases[0].iter("property")}
        kernels = json.loads(load("report.json"))["runs"][0]["result"]["kernels"]
        by_time = sorted(kernels, key=lambda k: -k["mean_ns"])
        self.assertEqual(properties["kernel.1"], xml_text(by_time[0]["name"]))
        self.assertEqual(properties["kernel.2"], xml_text(by_time[1]["name"]))
        self.assertIn("\n", properties["kernel.2"])  # kept through attribute normalisation
        self.assertEqual(properties["latency_ms"], "0.175313")
        self.assertEqual(properties["timing_backend"], "cupti")

        failure = cases[1].find("failure")
        self.assertEqual(failure.get("type"), "benchmark_failed")
        self.assertIn('"kernel <a&b>"\nsee', failure.get("message"))
        self.assertIsNotNone(cases[2].find("skipped"))

        counters = {p.get("name"): p.get("value") for p in cases[4].iter("property")}
        self.assertEqual(counters["counters.status"], "measured")
        self.assertEqual(counters["kernel.1.dram_bytes"], "536871936")
        unavailable = {p.get("name"): p.get("value") for p in cases[5].iter("property")}
        self.assertIn("NVreg_RestrictProfilingToAdminUsers", unavailable["counters.unavailable"])


class CsvReport(unittest.TestCase):
    def test_rfc4180(self):
        rows = list(csv.reader(io.StringIO(load("report.csv"), newline="")))
        header = rows[0]
        self.assertEqual(len(rows), 7)
        for row in rows:
            self.assertEqual(len(row), len(header))
        message = rows[2][header.index("message")]
        self.assertIn('"kernel <a&b>"\nsee compute-sanitizer', message)


class TraceReport(unittest.TestCase):
    def test_trace_events(self):
        trace = json.loads(load("report.trace.json"))
        complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
        self.assertTrue(complete)
        for event in complete:
            for key in ("name", "ts", "dur", "pid", "tid"):
                self.assertIn(key, event)
            self.assertGreaterEqual(event["dur"], 0)
            self.assertIn("iteration", event["args"])


if __name__ == "__main__":
    unittest.main()
