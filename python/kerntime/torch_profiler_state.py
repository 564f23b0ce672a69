"""Whether kerntime may share CUPTI with torch.profiler right now, and if not, why not.

PyTorch's profiler (Kineto) subscribes to CUPTI on its first use and keeps the subscription until
the process ends, so from then on kerntime's own subscription is refused. CUPTI's Activity API
needs no subscription: the engine may time with it alone, but only while the profiler traces
nothing, or each would take the other's records. ``cupti_holder()`` says which case holds; the
engine shares CUPTI only on ``CuptiHolder.idle_torch_profiler`` and asks again once it has
detached (docs/torch-profiler.md).

torch's flags say when a trace is recording, not when a schedule's warm-up step has prepared the
next one (Kineto then has CUPTI's activity kinds enabled and its buffers registered). So kerntime
wraps the profiler's prepare and exit (``torch.autograd.profiler.profile._prepare_trace`` and
``__exit__``) when it is imported, or when torch's profiler module is imported after it, and
keeps the profilers that are between the two.
"""

from __future__ import annotations

import functools
import importlib.abc
import os
import sys
import threading
from typing import Any, Dict, Mapping, Optional

from . import _kerntime

CuptiHolder = _kerntime.CuptiHolder

_PROFILER_MODULE = "torch.autograd.profiler"
_MARK = "_kerntime_tracks_prepare"

_lock = threading.Lock()
# Profilers prepared and not yet exited, by id. Strong references: a profiler dropped without
# exiting leaves Kineto armed, so it must stay counted.
_prepared: Dict[int, Any] = {}
# Set when the wrapping was in place before torch's profiler module existed: then "never
# prepared" is known, and means Kineto never subscribed, so the holder is another tool.
_watched_from_import = False
_ever_prepared = False


def track(profile_class: Any) -> bool:
    """Wraps ``profile_class._prepare_trace`` and ``__exit__`` once; False where it has neither."""
    if getattr(profile_class, _MARK, False):
        return True
    prepare = getattr(profile_class, "_prepare_trace", None)
    exit_ = getattr(profile_class, "__exit__", None)
    if prepare is None or exit_ is None:
        return False

    @functools.wraps(prepare)
    def _prepare_trace(self: Any, *args: Any, **kwargs: Any) -> Any:
        global _ever_prepared
        with _lock:
            _prepared[id(self)] = self
            _ever_prepared = True
        try:
            return prepare(self, *args, **kwargs)
        except BaseException:
            with _lock:
                _prepared.pop(id(self), None)
            raise

    @functools.wraps(exit_)
    def __exit__(self: Any, *args: Any) -> Any:
        try:
            return exit_(self, *args)
        finally:
            with _lock:
                _prepared.pop(id(self), None)

    profile_class._prepare_trace = _prepare_trace
    profile_class.__exit__ = __exit__
    setattr(profile_class, _MARK, True)
    return True


class _TrackingLoader(importlib.abc.Loader):
    """torch's own loader for the profiler module, which then wraps its profile class."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        global _watched_from_import
        self._loader.exec_module(module)
        _watched_from_import = track(getattr(module, "profile", None) or object)

    def __getattr__(self, name: str) -> Any:  # get_source, is_package, ... for tracebacks
        return getattr(self._loader, name)


class _ProfilerImportWatch(importlib.abc.MetaPathFinder):
    """Finds torch's profiler module with the other finders and hands it a tracking loader."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != _PROFILER_MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _TrackingLoader(spec.loader)
                return spec
        return None


def track_torch_profiler() -> None:
    """Called when kerntime is imported: wraps torch's profiler now if it is loaded, otherwise
    as soon as it is imported."""
    module = sys.modules.get(_PROFILER_MODULE)
    if module is not None:
        track(module.profile)
        return
    with _lock:
        if not any(isinstance(f, _ProfilerImportWatch) for f in sys.meta_path):
            sys.meta_path.insert(0, _ProfilerImportWatch())


def _recording(torch: Any) -> bool:
    autograd = torch.autograd
    enabled = getattr(autograd, "_profiler_enabled", None)  # any profiler, C++ side
    if enabled is not None and enabled():
        return True
    return bool(getattr(getattr(autograd, "profiler", None), "_is_profiler_enabled", False))


def cupti_holder(torch: Optional[Any] = None,
                 environ: Optional[Mapping[str, str]] = None) -> "CuptiHolder":
    """Who holds CUPTI's subscription if kerntime's own is refused, as far as can be known here.

    ``idle_torch_profiler`` (the grant to share) only when torch is loaded, Kineto is available,
    no profiler records or is armed (prepared by a schedule's warm-up step), KINETO_USE_DAEMON is
    unset (a daemon could start a trace at any moment) and no tool is injected into CUDA
    (CUDA_INJECTION64_PATH: Nsight Systems, Nsight Compute, compute-sanitizer). ``torch`` and
    ``environ`` default to the loaded torch (never imported here) and os.environ.
    """
    environ = os.environ if environ is None else environ
    if environ.get("CUDA_INJECTION64_PATH"):
        return CuptiHolder.injected_tool
    torch = sys.modules.get("torch") if torch is None else torch
    if torch is None:
        return CuptiHolder.unknown
    try:
        kineto = bool(torch.autograd.kineto_available())
    except (AttributeError, RuntimeError):
        kineto = False
    if not kineto:
        return CuptiHolder.unknown
    if _recording(torch):
        return CuptiHolder.torch_profiler_recording
    profiler = getattr(torch.autograd, "profiler", None)
    if profiler is None or not track(getattr(profiler, "profile", None) or object):
        return CuptiHolder.unknown  # warm-up steps cannot be seen: no proof of idleness
    with _lock:
        armed = bool(_prepared)
        never_used = _watched_from_import and not _ever_prepared
    if armed:
        return CuptiHolder.torch_profiler_armed
    if environ.get("KINETO_USE_DAEMON", ""):
        return CuptiHolder.kineto_daemon
    if never_used:
        return CuptiHolder.unknown  # Kineto subscribes on first use: the holder is someone else
    return CuptiHolder.idle_torch_profiler


def describe(holder: "CuptiHolder") -> str:
    """The words kerntime's outputs give for ``holder``, e.g. "torch.profiler is recording"."""
    return _kerntime.describe_cupti_holder(holder)
