"""kerntime.testing.patch(): the benchmark functions of Triton, TileLang and FlashInfer replaced
in this process by kerntime's drop-ins, so existing scripts measure with kerntime unchanged.

A module already imported is patched at once; one imported later is patched as its import
finishes (an import hook), so ``patch()`` may come before ``import triton``. What a script bound
to a name of its own before patching (``from triton.testing import do_bench`` ahead of
``patch()``) keeps the original: patch first, or run the script with
``python -m kerntime.testing script.py``.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
from typing import Any, Callable, Dict, List, Tuple

from . import flashinfer as flashinfer_drop_in
from . import tilelang as tilelang_drop_in
from . import triton as triton_drop_in
from .drop_in import release_session

# Which attribute of which module each framework's drop-in replaces. TileLang's Profiler.do_bench
# calls the do_bench it imported into tilelang.profiler, so both names are replaced.
REPLACEMENTS: Dict[str, List[Tuple[str, str, Callable[..., Any]]]] = {
    "triton": [("triton.testing", "do_bench", triton_drop_in.do_bench),
               ("triton.testing", "do_bench_cudagraph", triton_drop_in.do_bench_cudagraph)],
    "tilelang": [("tilelang.profiler.bench", "do_bench", tilelang_drop_in.do_bench),
                 ("tilelang.profiler", "do_bench", tilelang_drop_in.do_bench)],
    "flashinfer": [("flashinfer.testing.utils", "bench_gpu_time", flashinfer_drop_in.bench_gpu_time),
                   ("flashinfer.testing", "bench_gpu_time", flashinfer_drop_in.bench_gpu_time)],
}

_lock = threading.RLock()
# (module, attribute) -> (what was there, what replaced it)
_originals: Dict[Tuple[str, str], Tuple[Any, Callable[..., Any]]] = {}
_pending: Dict[str, List[Tuple[str, Callable[..., Any]]]] = {}  # module -> replacements to make


def _replace(module: Any, attribute: str, replacement: Callable[..., Any]) -> None:
    key = (module.__name__, attribute)
    if key in _originals or not hasattr(module, attribute):
        return
    current = getattr(module, attribute)
    if current is replacement:
        # Bound from an already patched module during its own import (tilelang.profiler's
        # ``from .bench import do_bench``): its original is the one that module had.
        current = next((original for original, made in _originals.values()
                        if made is replacement), current)
    _originals[key] = (current, replacement)
    setattr(module, attribute, replacement)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader of a module waiting for a patch, so the patch is
    made as soon as the module has run."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in _pending:
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module: Any) -> None:
            original_exec(module)
            with _lock:
                for attribute, replacement in _pending.pop(name, []):
                    _replace(module, attribute, replacement)

        class _Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: Any) -> None:
                exec_module(module)

        spec.loader = _Loader()
        return spec


_hook = _PatchOnImport()


def patch(frameworks: Tuple[str, ...] = ("triton", "tilelang", "flashinfer")) -> None:
    """Replaces ``triton.testing.do_bench`` and ``do_bench_cudagraph``,
    ``tilelang.profiler.do_bench`` and ``flashinfer.testing.bench_gpu_time`` in this process
    with kerntime.testing's drop-ins (for the `frameworks` named), now where imported, else when
    imported. ``unpatch()`` restores them. Idempotent."""
    unknown = [name for name in frameworks if name not in REPLACEMENTS]
    if unknown:
        from ..errors import InvalidArgument
        raise InvalidArgument(f"patch() knows {', '.join(REPLACEMENTS)} (got {', '.join(unknown)})")
    with _lock:
        for framework in frameworks:
            for module_name, attribute, replacement in REPLACEMENTS[framework]:
                module = sys.modules.get(module_name)
                if module is not None:
                    _replace(module, attribute, replacement)
                else:
                    waiting = _pending.setdefault(module_name, [])
                    if (attribute, replacement) not in waiting:
                        waiting.append((attribute, replacement))
        if _pending and _hook not in sys.meta_path:
            sys.meta_path.insert(0, _hook)


def unpatch() -> None:
    """Restores what patch() replaced, drops the patches still waiting for an import, and closes
    the drop-ins' kerntime session."""
    with _lock:
        for (module_name, attribute), (original, _) in _originals.items():
            module = sys.modules.get(module_name)
            if module is not None:
                setattr(module, attribute, original)
        _originals.clear()
        _pending.clear()
        if _hook in sys.meta_path:
            sys.meta_path.remove(_hook)
    release_session()


def patched() -> List[str]:
    """``module.attribute`` of every replacement in place now."""
    with _lock:
        return [f"{module}.{attribute}" for module, attribute in _originals]
