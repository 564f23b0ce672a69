"""Input sets: the copies of the tensor arguments that consecutive iterations rotate over.

Every iteration runs on a cold L2, but a kernel that saw the same addresses one iteration ago can
still profit from TLB and DRAM page state, so kerntime rotates over ``input_sets`` copies of the
inputs, all made before the timed region (an allocation inside it inflates the kernel time).

The rules:

- a tensor is any object with a callable ``clone()`` (PyTorch tensors) or a CUDA array with a
  callable ``copy()`` (``__cuda_array_interface__``: CuPy arrays); it is cloned once per extra
  input set, and set 0 uses the original;
- tensors inside lists, tuples and dicts are cloned the same way (``torch.cat([a, b])``);
- everything else (numbers, strings, None, modules, host arrays) is passed as it is, the same
  object in every set.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Tuple

from .errors import InvalidArgument

# One input set: positional arguments and keyword arguments of one call.
CallArguments = Tuple[Tuple[Any, ...], Dict[str, Any]]


def is_tensor(value: Any) -> bool:
    """Whether kerntime copies `value` into each input set."""
    if callable(getattr(value, "clone", None)):
        return True
    return hasattr(value, "__cuda_array_interface__") and callable(getattr(value, "copy", None))


def copy_tensor(value: Any) -> Any:
    if callable(getattr(value, "clone", None)):
        return value.clone()
    return value.copy()


def _copy_value(value: Any, copy: Callable[[Any], Any]) -> Any:
    if is_tensor(value):
        return copy(value)
    # Exact types only: a namedtuple or a user container subclass is passed as it is, since
    # rebuilding it could lose its identity or meaning.
    if type(value) is list:
        return [_copy_value(item, copy) for item in value]
    if type(value) is tuple:
        return tuple(_copy_value(item, copy) for item in value)
    if type(value) is dict:
        return {key: _copy_value(item, copy) for key, item in value.items()}
    return value


def make_input_sets(args: Tuple[Any, ...], kwargs: Dict[str, Any], count: int) -> List[CallArguments]:
    """`count` input sets: set 0 is the caller's own arguments, sets 1.. hold fresh copies of
    every tensor. Raises what a clone raises (out of memory, for instance) unchanged."""
    if count < 1:
        # The engine validates the protocol too; checked here so no copy is made in vain.
        raise InvalidArgument(f"input_sets must be at least 1 (got {count}); pass a value >= 1")
    sets: List[CallArguments] = [(tuple(args), dict(kwargs))]
    for _ in range(count - 1):
        copied_args = tuple(_copy_value(value, copy_tensor) for value in args)
        copied_kwargs = {key: _copy_value(value, copy_tensor) for key, value in kwargs.items()}
        sets.append((copied_args, copied_kwargs))
    return sets


def iter_tensors(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Iterator[Any]:
    """Every tensor among the arguments, containers included, in argument order."""
    pending = list(args) + list(kwargs.values())
    while pending:
        value = pending.pop(0)
        if is_tensor(value):
            yield value
        elif type(value) in (list, tuple):
            pending[0:0] = list(value)
        elif type(value) is dict:
            pending[0:0] = list(value.values())
