"""Which arguments kerntime copies into the input sets, and how many copies."""

import pytest

import kerntime
from kerntime.input_sets import is_tensor, iter_tensors, make_input_sets

from fake_tensor import FailingTensor, FakeCudaArray, FakeTensor, HostArray


def test_set_zero_is_the_callers_own_arguments():
    a, b = FakeTensor("a"), FakeTensor("b")
    sets = make_input_sets((a, b), {}, 3)
    assert sets[0][0][0] is a and sets[0][0][1] is b


def test_each_tensor_is_cloned_once_per_extra_set():
    a, b = FakeTensor("a"), FakeTensor("b")
    sets = make_input_sets((a,), {"other": b}, 4)
    assert len(sets) == 4
    assert a.clones == 3 and b.clones == 3
    copies_of_a = [args[0] for args, _ in sets[1:]]
    assert all(copy.origin is a for copy in copies_of_a)
    assert len({id(copy) for copy in copies_of_a}) == 3
    assert all(kwargs["other"].origin is b for _, kwargs in sets[1:])


def test_one_input_set_clones_nothing():
    a = FakeTensor("a")
    sets = make_input_sets((a,), {}, 1)
    assert len(sets) == 1 and sets[0][0][0] is a and a.clones == 0


def test_non_tensors_are_passed_as_they_are():
    scale, text, host = 2.5, "mode", HostArray()
    marker = object()
    sets = make_input_sets((scale, text, host, None), {"flag": marker}, 3)
    for args, kwargs in sets:
        assert args[0] is scale and args[1] is text and args[2] is host and args[3] is None
        assert kwargs["flag"] is marker


def test_tensors_inside_lists_tuples_and_dicts_are_cloned():
    a, b, c = FakeTensor("a"), FakeTensor("b"), FakeTensor("c")
    sets = make_input_sets(([a, b], (c, 3)), {"named": {"x": a}}, 2)
    (copied_list, copied_tuple), kwargs = sets[1]
    assert [t.origin for t in copied_list] == [a, b]
    assert copied_tuple[0].origin is c and copied_tuple[1] == 3
    assert isinstance(copied_tuple, tuple)
    assert kwargs["named"]["x"].origin is a
    assert a.clones == 2  # once in the list, once in the dict


def test_cuda_arrays_without_clone_are_copied():
    array = FakeCudaArray()
    sets = make_input_sets((array,), {}, 3)
    assert all(args[0].origin is array for args, _ in sets[1:])


def test_what_counts_as_a_tensor():
    assert is_tensor(FakeTensor("a"))
    assert is_tensor(FakeCudaArray())
    assert not is_tensor(HostArray())
    assert not is_tensor(3) and not is_tensor("s") and not is_tensor(None)


def test_iter_tensors_finds_nested_tensors_in_order():
    a, b, c = FakeTensor("a"), FakeTensor("b"), FakeTensor("c")
    found = list(iter_tensors((a, [b, 1]), {"k": {"z": c}}))
    assert found == [a, b, c]


def test_a_failing_clone_propagates_unchanged():
    with pytest.raises(MemoryError, match="cannot clone x"):
        make_input_sets((FailingTensor("x"),), {}, 2)


def test_bench_does_not_swallow_argument_preparation_errors():
    # The clone fails before anything reaches the engine: the caller sees that error itself,
    # not a kerntime error and not a fallback.
    def fn(x):
        raise AssertionError("fn must not run when its arguments could not be prepared")

    with pytest.raises(MemoryError, match="cannot clone x"):
        kerntime.bench(fn, FailingTensor("x"))


def test_fewer_than_one_input_set_is_rejected_before_copying():
    a = FakeTensor("a")
    with pytest.raises(kerntime.InvalidArgument, match="input_sets"):
        make_input_sets((a,), {}, 0)
    assert a.clones == 0
