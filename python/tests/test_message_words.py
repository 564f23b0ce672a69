"""The small words of Python's messages, as the engine's: "1 result" and "2 results", never
"1 results"."""

import kerntime
from kerntime import _kerntime
from kerntime.message_words import counted


def test_one_thing_is_singular_and_any_other_count_is_plural():
    assert counted(1, "result") == "1 result"
    assert counted(0, "result") == "0 results"
    assert counted(7, "benchmark test") == "7 benchmark tests"
    assert counted(1, "pass", "passes") == "1 pass"
    assert counted(2, "pass", "passes") == "2 passes"


def test_a_results_repr_counts_its_kernels():
    assert repr(kerntime.Result(_kerntime._example_result())).endswith(", 2 kernels>")
    assert repr(kerntime.Result(_kerntime._example_result(backend="events"))).endswith(
        ", 0 kernels>")
