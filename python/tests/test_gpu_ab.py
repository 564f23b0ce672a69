"""kerntime.ab on real PyTorch work (H200): an A/A of one GEMM must not decide slower or faster,
a bf16 GEMM against the same GEMM in fp32 must decide, and the outcome carries both sides'
results, the kernels and the ratio in cycles. Skipped without a CUDA device or torch."""

import pytest

import kerntime
from kerntime import _kerntime

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not hasattr(_kerntime, "SequentialRatio"),
                                 reason="this build of kerntime has no compare")]
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)


def gemm_inputs(n, dtype):
    return (torch.randn(n, n, device="cuda", dtype=dtype),
            torch.randn(n, n, device="cuda", dtype=dtype))


def test_the_same_gemm_on_both_sides_is_never_slower_or_faster():
    a, b = gemm_inputs(2048, torch.bfloat16)
    c = kerntime.ab(torch.matmul, torch.matmul, a, b, max_blocks=20)
    print(f"RESULT ab_aa_gemm verdict={c.verdict} ratio={c.ratio:.4f} low={c.ratio_low:.4f} "
          f"high={c.ratio_high:.4f} blocks={c.blocks} wall_s={c.wall_seconds:.2f}")
    assert c.verdict in ("same", "inconclusive"), str(c)
    assert c.ratio_low <= 1 <= c.ratio_high
    assert len(c.results_a) == len(c.results_b) == 2 * c.blocks
    assert all(r.timing_backend == "cupti" for r in c.results_a + c.results_b)
    assert c.timer_resolution_ns == pytest.approx(32, abs=1.5)
    assert c.cycles_ratio is not None  # every trial read its on-GPU clock


def test_fp32_against_bf16_is_decided_slower_with_the_kernels_that_changed():
    a16, b16 = gemm_inputs(2048, torch.bfloat16)
    a32, b32 = a16.float(), b16.float()
    c = kerntime.ab(lambda: torch.matmul(a16, b16), lambda: torch.matmul(a32, b32),
                    max_blocks=20)
    print(f"RESULT ab_bf16_vs_fp32 verdict={c.verdict} ratio={c.ratio:.4f} blocks={c.blocks} "
          f"wall_s={c.wall_seconds:.2f}")
    assert c.verdict == "slower", str(c)
    assert c.ratio > 1.5
    assert c.blocks <= 5
    appeared = [k for k in c.kernels if k.a_mean_ms is None and k.b_mean_ms is not None]
    assert appeared, "fp32 runs other kernels than bf16"


@pytest.mark.parametrize("extra_us", [0.2, 2.0])
def test_a_spin_kernel_made_longer_is_decided_slower(extra_us):
    # torch.cuda._sleep spins for a number of SM clock cycles: about 20 µs at the H200's
    # 1980 MHz; 0.2 µs more is 1 %, against a ±0.5 % band.
    cycles_per_us = 1980
    base = int(20 * cycles_per_us)
    longer = int((20 + extra_us) * cycles_per_us)
    c = kerntime.ab(lambda: torch.cuda._sleep(base), lambda: torch.cuda._sleep(longer),
                    max_blocks=30, threshold=0.005)
    print(f"RESULT ab_sleep_plus_{extra_us}us verdict={c.verdict} ratio={c.ratio:.4f} "
          f"low={c.ratio_low:.4f} high={c.ratio_high:.4f} blocks={c.blocks} "
          f"wall_s={c.wall_seconds:.2f}")
    assert c.verdict == "slower", str(c)


PYTEST_PAIRED_FILE = '''
import torch

a16 = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
b16 = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
a32, b32 = a16.float(), b16.float()


def test_fp32_against_its_bf16_baseline(kerntime_bench):
    kerntime_bench(lambda: torch.matmul(a32, b32))
    kerntime_bench(lambda: torch.matmul(a16, b16), baseline=True)


def test_a_gemm_against_itself(kerntime_bench):
    kerntime_bench(torch.matmul, a16, b16)
    kerntime_bench(torch.matmul, a16, b16, baseline=True)
'''


def test_the_pytest_plugin_gives_a_baseline_the_paired_verdict_of_real_work(pytester,
                                                                           monkeypatch):
    # The plugin as a user meets it: a test file with a main callable and its baseline=True,
    # real GEMMs, the verdict and ratio as JUnit properties.
    import os
    import pathlib
    from xml.etree import ElementTree
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    package_root = str(pathlib.Path(kerntime.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_paired_gpu=PYTEST_PAIRED_FILE)
    outcome = pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin",
                                            "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=2)
    cases = {case.get("name"): dict((p.get("name"), p.get("value")) for p in case.iter("property"))
             for case in ElementTree.parse(pytester.path / "junit.xml").iter("testcase")}
    fp32 = cases["test_fp32_against_its_bf16_baseline"]
    same = cases["test_a_gemm_against_itself"]
    for name, props in (("fp32_vs_bf16", fp32), ("aa_gemm", same)):
        print(f"RESULT pytest_paired_{name} verdict={props.get('kerntime_baseline_ab_verdict')} "
              f"ratio={props.get('kerntime_baseline_ab_ratio')} "
              f"blocks={props.get('kerntime_baseline_ab_blocks')}")
    assert fp32["kerntime_baseline_ab_verdict"] == "slower", fp32
    assert float(fp32["kerntime_baseline_ab_ratio"]) > 1.5
    assert same["kerntime_baseline_ab_verdict"] in ("same", "inconclusive"), same
    assert float(same["kerntime_baseline_ab_ratio_low"]) <= 1 <= float(
        same["kerntime_baseline_ab_ratio_high"])
