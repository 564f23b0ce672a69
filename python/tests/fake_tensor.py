"""A stand-in for a framework tensor: anything with .clone() is a tensor to kerntime."""

import itertools

_ids = itertools.count()


class FakeTensor:
    """Counts its clones; `origin` is the tensor a clone was made from."""

    def __init__(self, name, origin=None):
        self.name = name
        self.origin = origin
        self.clones = 0
        self.id = next(_ids)

    def clone(self):
        self.clones += 1
        return FakeTensor(self.name, origin=self)


class FailingTensor(FakeTensor):
    """Its clone fails, as a clone that runs out of GPU memory would."""

    def clone(self):
        raise MemoryError(f"cannot clone {self.name}")


class FakeCudaArray:
    """CuPy-like: no .clone(), but .copy() and __cuda_array_interface__."""

    __cuda_array_interface__ = {"shape": (1,), "typestr": "<f4", "data": (0, False), "version": 3}

    def __init__(self, origin=None):
        self.origin = origin

    def copy(self):
        return FakeCudaArray(origin=self)


class HostArray:
    """numpy-like: .copy() but no CUDA array interface, so it is passed as it is."""

    def copy(self):
        raise AssertionError("host arrays must not be copied")
