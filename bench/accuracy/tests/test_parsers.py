"""CPU tests of the study's parsers against hand-made inputs (no GPU, no torch):

    python3 bench/accuracy/tests/test_parsers.py
"""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

import kernel_names  # noqa: E402
import kerntime_json  # noqa: E402
import ncu_csv  # noqa: E402
import report  # noqa: E402
import sample_stats  # noqa: E402

GOLDEN = os.path.join(REPO, "tests", "report", "golden", "report.json")


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


class NcuCsv(unittest.TestCase):
    def test_reads_every_kernel_in_launch_order_with_units_and_separators(self):
        launches = ncu_csv.read_launches(read("sample_ncu_gemm.csv"))
        self.assertEqual(len(launches), 2 + 2 + 1 + 40)
        self.assertEqual(launches[0].duration_ns, 1024.0)
        self.assertEqual(launches[4].duration_ns, 1_000_163_840.0)
        self.assertAlmostEqual(launches[6].duration_ns, 3104.0)  # usecond
        self.assertEqual([l.id for l in launches], sorted(l.id for l in launches))

    def test_splits_the_trial_after_kerntimes_blocking_kernel(self):
        launches = ncu_csv.read_launches(read("sample_ncu_gemm.csv"))
        block = ncu_csv.after_last(launches, lambda l: kernel_names.is_blocking_kernel(l.name))
        split = ncu_csv.split_iterations(block, 20)
        self.assertEqual(split.kernels_per_iteration, 2)
        self.assertEqual(len(split.iterations), 20)
        self.assertEqual(split.note, "")
        self.assertAlmostEqual(split.sums_ns()[0], 175000 + 3104)
        self.assertEqual(sorted(split.calls_per_iteration().values()), [1.0, 1.0])

    def test_any_metric_is_read_per_kernel_in_launch_order_as_printed(self):
        text = read("sample_ncu_gemm.csv")
        durations = ncu_csv.read_metric(text, ncu_csv.METRIC)
        self.assertEqual(len(durations), len(ncu_csv.read_launches(text)))
        self.assertEqual(durations[0], 1024.0)
        self.assertAlmostEqual(durations[6], 3.104)  # printed in useconds: not converted
        self.assertEqual(ncu_csv.read_metric(text, "sm__cycles_elapsed.avg.per_second"), [])

    def test_a_block_that_does_not_divide_is_an_error_not_a_guess(self):
        launches = ncu_csv.read_launches(read("sample_ncu_gemm.csv"))
        with self.assertRaises(ncu_csv.NcuFormatError):
            ncu_csv.split_iterations(launches[5:-1], 20)

    def test_no_marker_is_an_error(self):
        with self.assertRaises(ncu_csv.NcuFormatError):
            ncu_csv.after_last(ncu_csv.read_launches(read("sample_ncu_torch.csv")),
                               lambda l: kernel_names.is_blocking_kernel(l.name))

    def test_marker_blocks_of_the_torch_run(self):
        blocks = ncu_csv.between_markers(ncu_csv.read_launches(read("sample_ncu_torch.csv")))
        self.assertEqual([len(b) for b in blocks], [20, 0])
        empty = ncu_csv.split_iterations(blocks[1], 20)
        self.assertEqual(empty.iterations, [])
        self.assertIn("no kernel", empty.note)

    def test_empty_or_foreign_text_has_no_launches(self):
        self.assertEqual(ncu_csv.read_launches("==PROF== nothing profiled\n"), [])


class Names(unittest.TestCase):
    def test_mangled_and_demangled_spellings_meet(self):
        mangled = "_ZN8kerntime5suite12_GLOBAL__N_111spin_kernelEm"
        demangled = "void kerntime::suite::(anonymous namespace)::spin_kernel(unsigned long)"
        self.assertEqual(kernel_names.full_name(mangled), kernel_names.full_name(demangled))
        self.assertEqual(kernel_names.base_name(demangled),
                         "kerntime::suite::(anonymous namespace)::spin_kernel")

    def test_kernel_lists_compare_by_name_and_count(self):
        same, level, _ = kernel_names.compare_kernel_lists(
            {"_ZN8kerntime5suite12_GLOBAL__N_111spin_kernelEm": 1.0},
            {"void kerntime::suite::(anonymous namespace)::spin_kernel(unsigned long)": 1.0})
        self.assertTrue(same)
        self.assertEqual(level, "full name")
        same, level, rows = kernel_names.compare_kernel_lists({"a": 1.0, "b": 2.0},
                                                              {"a": 1.0, "b": 1.0})
        self.assertFalse(same)
        self.assertEqual(level, "differ")
        self.assertEqual(rows[1], {"name": "b", "kerntime_calls": 2.0, "ncu_calls": 1.0})

    def test_blocking_kernel_is_recognised_in_both_spellings(self):
        self.assertTrue(kernel_names.is_blocking_kernel(
            "_ZN8kerntime6detail12_GLOBAL__N_116wait_for_releaseEPVim"))
        self.assertTrue(kernel_names.is_blocking_kernel(
            "void kerntime::detail::(anonymous namespace)::wait_for_release(volatile int *, "
            "unsigned long)"))
        self.assertFalse(kernel_names.is_blocking_kernel("nvjet_hsh_256x128"))


class KerntimeJson(unittest.TestCase):
    def test_golden_report_summarises(self):
        runs = kerntime_json.load_runs(GOLDEN)
        ok = kerntime_json.summarise_run(runs["gemm_bf16/M=4096/N=4096"])
        self.assertEqual(ok["backend"], "cupti")
        self.assertAlmostEqual(ok["median_us"], 175.3125)
        self.assertAlmostEqual(ok["cv_of_means"], 0.0064377)
        self.assertEqual(ok["iterations_total"], 10 + 1 + 6)
        self.assertEqual(ok["wall_seconds"], 0.25)
        self.assertEqual(len(kerntime_json.kernel_calls(ok)), 1)
        self.assertEqual(len(kerntime_json.other_records(ok)), 1)  # the memset
        failed = kerntime_json.summarise_run(runs["gemm_bf16/M=8192/N=4096"])
        self.assertEqual(failed["status"], "failed")
        self.assertNotIn("median_us", failed)
        events = kerntime_json.summarise_run(runs["device_copy/bytes=16777216/l2=cold"])
        self.assertEqual(events["backend"], "events")
        self.assertEqual(events["iterations_total"], 10 + 0 + 2)


class Stats(unittest.TestCase):
    def test_percentiles_interpolate_like_numpy(self):
        self.assertEqual(sample_stats.percentile([4, 1, 3, 2], 0.5), 2.5)
        self.assertAlmostEqual(sample_stats.percentile([1, 2, 3, 4, 5], 0.1), 1.4)
        s = sample_stats.summary([1000, 2000, 3000])
        self.assertEqual(s["median_us"], 2.0)
        self.assertAlmostEqual(s["stdev_us"], 1.0)
        self.assertIsNone(sample_stats.relative_difference(1.0, 0.0))


class Report(unittest.TestCase):
    """report.build over a hand-made work folder: the golden JSON as a CLI run, the sample CSV
    as Nsight Compute's view of that state."""

    def test_cases_checks_and_markdown(self):
        with tempfile.TemporaryDirectory() as work:
            with open(GOLDEN, encoding="utf-8") as f:
                golden = json.load(f)
            golden["runs"][0]["result"]["kernels"] = [
                {"name": "nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_NNN", "kind": "kernel",
                 "calls_per_iteration": 1.0, "mean_ns": 175000.0, "median_ns": 175000.0,
                 "share": 0.98},
                {"name": "_ZN7cutlass7Kernel2INS_4gemm6kernel13SplitKReduceIfLi128ELi4EEEEEvNT_"
                         "6ParamsE", "kind": "kernel", "calls_per_iteration": 1.0,
                 "mean_ns": 3100.0, "median_ns": 3100.0, "share": 0.02}]
            cli_json = os.path.join(work, "cli_gemm_cupti.json")
            with open(cli_json, "w", encoding="utf-8") as f:
                json.dump(golden, f)
            manifest = {
                "build": "build", "date": "d", "host": "h", "ncu_repeats": 20, "seconds": 1,
                "steps": [{"name": "s", "rc": 0, "seconds": 1}],
                "cli": {"gemm": {"cupti": {"json": cli_json, "step": "s"},
                                 "events": {"json": os.path.join(work, "missing.json"),
                                            "step": "s"}}},
                "ncu": {"gemm_bf16/M=4096/N=4096": {"csv": os.path.join(HERE,
                                                                        "sample_ncu_gemm.csv")}},
                "repeat_runs": [cli_json, cli_json],
            }
            with open(os.path.join(work, "manifest.json"), "w", encoding="utf-8") as f:
                json.dump(manifest, f)
            data = report.build(work)
            case = next(c for c in data["cases"] if c["id"] == "gemm_bf16/M=4096/N=4096")
            self.assertEqual(case["ncu"]["kernels_per_iteration"], 2)
            self.assertTrue(case["kernel_match"]["same"])
            self.assertAlmostEqual(case["ncu"]["median_us"], (175000 + 32 * 9.5 + 3104) / 1e3)
            targets = {c["target"] for c in data["checks"] if c["case"] == case["id"]}
            self.assertEqual(targets, {"kernel_lists", "trial_cv", "wall"})
            self.assertEqual(data["repeatability"][0]["runs"], 2)
            text = report.markdown(data)
            self.assertIn("## Targets", text)
            self.assertTrue(any(e.startswith("gemm/* (events): no JSON") for e in data["errors"]))
            self.assertIn("summary", report.summary_table(data).lower())


if __name__ == "__main__":
    unittest.main(verbosity=1)
