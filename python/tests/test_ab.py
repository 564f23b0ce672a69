"""kerntime.ab's loop on the CPU: run_ab driven by callables that return the extension's fixed
fixture result, scaled per call (each call is one trial), so the real confidence sequence (the C++
core, src/compare/confidence_sequence.cpp) decides. bench() itself needs a GPU: test_gpu_ab.py."""

import importlib
import itertools
import random

import pytest

import kerntime
from kerntime import _kerntime
from kerntime.ab import run_ab

pytestmark = pytest.mark.skipif(not hasattr(_kerntime, "SequentialRatio"),
                                reason="this build of kerntime has no compare (Boost headers)")


def trials(scale, noise=0.001, seed=1):
    """A callable returning one trial's Result per call: the fixture at `scale`, moved by a
    fixed-seed relative noise (trial-to-trial spread)."""
    draw = random.Random(seed)

    def measure():
        factor = scale * (1 + draw.gauss(0, noise))
        return kerntime.Result(_kerntime._example_result(scale=factor, trials=1))
    return measure


def test_an_aa_comparison_is_same_within_a_few_blocks():
    c = run_ab(trials(1.0, seed=1), trials(1.0, seed=2))
    assert c.verdict == "same"
    assert 3 <= c.blocks <= 10
    assert c.ratio_low < 1 < c.ratio_high
    assert 1 / 1.01 <= c.ratio_low and c.ratio_high <= 1.01
    assert len(c.results_a) == len(c.results_b) == 2 * c.blocks  # A B B A per block


def test_a_five_percent_slower_b_is_slower_and_a_faster_one_faster():
    slower = run_ab(trials(1.0, seed=1), trials(1.05, seed=2))
    assert slower.verdict == "slower"
    assert slower.ratio == pytest.approx(1.05, rel=0.005)
    assert slower.ratio_low > 1.01
    faster = run_ab(trials(1.0, seed=3), trials(0.95, seed=4))
    assert faster.verdict == "faster"
    assert faster.ratio_high < 1 / 1.01


def test_a_change_on_the_band_edge_is_inconclusive_at_max_blocks_and_says_what_to_do():
    c = run_ab(trials(1.0, noise=0.01, seed=5), trials(1.01, noise=0.01, seed=6), max_blocks=4)
    assert c.verdict == "inconclusive"
    assert c.blocks == 4
    assert any("raise max_blocks or max_time, or widen threshold" in n for n in c.notes)


def test_a_timer_bound_comparison_stops_once_no_verdict_can_come(monkeypatch):
    # A timer step of 3 % of the time (32 ns on ~1 us) against the ±1 % band: same is out of
    # reach, and once the interval lies inside the band no change can be shown either.
    monkeypatch.setattr(importlib.import_module("kerntime.ab"), "_resolution",
                        lambda block: 0.03)
    c = run_ab(trials(1.0, seed=9), trials(1.0, seed=10), max_blocks=30)
    assert c.verdict == "inconclusive"
    assert c.blocks == 8  # the fewest from which that stop is made
    assert any("stopped after 8 blocks: the timer's resolution alone is ±3.0 %" in n for n in c.notes)
    # A change beyond the band and the step is still shown.
    slower = run_ab(trials(1.0, seed=11), trials(1.10, seed=12), max_blocks=30)
    assert slower.verdict == "slower"


def test_blocks_that_spread_beyond_any_band_in_reach_stop_from_the_tenth():
    # Trials spread by 30 % each: at ±1 % even a ratio of 1 would need far more than twice
    # max_blocks, and so would any band up to ±5 %, so the run stops once it knows the spread
    # (the 10th block), not at the 50th.
    c = run_ab(trials(1.0, noise=0.30, seed=13), trials(1.0, noise=0.30, seed=14))
    assert c.verdict == "inconclusive"
    assert 10 <= c.blocks < 50
    assert c.band_reason == "threshold" or c.band <= 0.05
    assert any(f"stopped after {c.blocks} blocks: they spread so widely" in n
               and "more than 100 blocks to settle within ±5 %" in n for n in c.notes), c.notes
    # The same spread against a wide enough band decides.
    wide = run_ab(trials(1.0, noise=0.30, seed=13), trials(1.0, noise=0.30, seed=14),
                  threshold=0.60)
    assert wide.verdict == "same"


def test_blocks_too_spread_for_the_band_are_judged_at_the_band_their_spread_can_settle():
    # Trials spread by 2.5 %: ±1 % would take ~90 blocks, beyond twice the 20 allowed, so from
    # the 10th block the run goes on at the narrowest band, in half steps up to ±5 %, that this
    # spread could settle, and says why; an A/A run is not called changed.
    c = run_ab(trials(1.0, noise=0.025, seed=15), trials(1.0, noise=0.025, seed=16),
               max_blocks=20)
    assert c.verdict in ("same", "inconclusive")
    assert 0.01 < c.band <= 0.05
    assert round(c.band / 0.005) == pytest.approx(c.band / 0.005)  # whole half steps
    assert c.band_reason.startswith("spread floor: the blocks spread so widely that same at ±1 %")
    assert "slower and faster still at ±1 %" in c.band_reason
    assert c.band_reason in c.notes
    assert f"(band ±{100 * c.band:g} %)" in repr(c)


def test_max_time_ends_the_run_after_the_block_that_passed_it():
    ticks = itertools.count()
    # The clock reads 0 at the start and one more second at each look after a block: 1.5 s have
    # passed at the look after block 2.
    c = run_ab(trials(1.0, seed=7), trials(1.0, seed=8), max_time=1.5,
               clock=lambda: float(next(ticks)))
    assert c.blocks == 2
    assert c.verdict == "inconclusive"  # two blocks cannot bound the ratio
    assert c.ratio_high == float("inf")


def test_every_kernel_of_either_side_is_listed_with_its_mean():
    c = run_ab(trials(1.0, seed=9), trials(1.05, seed=10))
    names = [k.name for k in c.kernels]
    assert names[0] == "void gemm<float, 128>(params<\"tn\", 3>, int)"
    assert "[memset]" in names or any(k.kind == "memset" for k in c.kernels)
    gemm = c.kernels[0]
    assert gemm.b_mean_ms / gemm.a_mean_ms == pytest.approx(1.05, rel=0.01)
    assert c.cycles_ratio is None  # the fixture measured no clock


def test_the_comparison_reads_as_one_line_and_as_a_summary():
    c = run_ab(trials(1.0, seed=11), trials(1.05, seed=12))
    assert repr(c).startswith("<ABComparison B/A 1.05")
    assert "slower (band ±1 %)" in repr(c)
    assert "blocks of A B B A" in str(c)


@pytest.mark.parametrize("options, problem", [
    (dict(threshold=0), "threshold must be a fraction in (0, 1)"),
    (dict(threshold=1.5), "threshold must be a fraction in (0, 1)"),
    (dict(alpha=1.0), "alpha must be in (0, 1)"),
    (dict(max_blocks=0), "max_blocks must be a whole number of at least 1"),
    (dict(max_time=-1), "max_time must be a number of seconds above 0"),
])
def test_bad_options_are_refused_before_anything_runs(options, problem):
    ran = []

    def measure():
        ran.append(1)
        return kerntime.Result(_kerntime._example_result())
    with pytest.raises(kerntime.InvalidArgument, match=problem.replace("(", r"\(").replace(")", r"\)")):
        run_ab(measure, measure, **options)
    assert not ran


@pytest.mark.parametrize("option", ["trials", "stop_at_ci", "max_trials"])
def test_ab_sets_the_trials_itself(option):
    with pytest.raises(kerntime.InvalidArgument, match=f"drop {option}="):
        kerntime.ab(lambda: None, lambda: None, **{option: 3})
