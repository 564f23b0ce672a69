"""Kernel names as CUPTI (kerntime) and Nsight Compute print them, made comparable.

CUPTI hands out mangled names (`_Z11spin_kernelm`); Nsight Compute prints what
`--print-kernel-base` asks for. Both sides are demangled with the C++ runtime's own demangler
(libstdc++'s `__cxa_demangle`, through ctypes; `c++filt` when that cannot be loaded), then
compared in full and, when the full names differ in spelling only, by their base name (scope and
function name, no return type, template arguments or parameters).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import shutil
import subprocess
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Tuple


def _load_cxa_demangle():
    for candidate in ("libstdc++.so.6", ctypes.util.find_library("stdc++")):
        if not candidate:
            continue
        try:
            library = ctypes.CDLL(candidate)
            function = library.__cxa_demangle
        except (OSError, AttributeError):
            continue
        function.restype = ctypes.c_void_p
        function.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.POINTER(ctypes.c_int)]
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.free.argtypes = [ctypes.c_void_p]
        return function, libc.free
    return None, None


_CXA_DEMANGLE, _FREE = _load_cxa_demangle()


@lru_cache(maxsize=None)
def demangle(name: str) -> str:
    """The demangled form of a mangled C++ name; anything else unchanged."""
    if not name.startswith("_Z"):
        return name
    if _CXA_DEMANGLE is not None:
        status = ctypes.c_int(0)
        pointer = _CXA_DEMANGLE(name.encode(), None, None, ctypes.byref(status))
        if pointer and status.value == 0:
            text = ctypes.string_at(pointer).decode(errors="replace")
            _FREE(pointer)
            return text
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    if tool:
        try:
            done = subprocess.run([tool, name], capture_output=True, text=True, timeout=10)
            text = done.stdout.strip()
            if done.returncode == 0 and text:
                return text
        except (OSError, subprocess.SubprocessError):
            pass
    return name


def full_name(name: str) -> str:
    """Demangled, without a leading `void ` return type, whitespace collapsed."""
    text = re.sub(r"\s+", " ", demangle(name.strip()))
    if text.startswith("void "):
        text = text[len("void "):]
    return text


def base_name(name: str) -> str:
    """Scope and function name only: `ns::(anonymous namespace)::spin_kernel`."""
    text = full_name(name).replace("(anonymous namespace)", "{anonymous}")
    depth = 0
    out: List[str] = []
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif ch == "(" and depth == 0:
            break  # the parameter list
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip().replace("{anonymous}", "(anonymous namespace)")


def short_name(name: str, limit: int = 60) -> str:
    """For tables: the base name, shortened in the middle when long."""
    text = base_name(name) or full_name(name)
    if len(text) <= limit:
        return text
    head = (2 * limit) // 3
    return text[:head] + "…" + text[-(limit - head - 1):]


def count_names(names: Iterable[str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return counts


def compare_kernel_lists(kerntime: Dict[str, float], ncu: Dict[str, float],
                         tolerance: float = 1e-6) -> Tuple[bool, str, List[dict]]:
    """Compare {name: calls per iteration} from kerntime and from Nsight Compute.

    Returns (same, level, rows): level is "full name", "base name" or "differ"; rows list every
    name with both counts (by base name when the full names did not match)."""

    def by(key_function, table: Dict[str, float]) -> Dict[str, float]:
        grouped: Dict[str, float] = {}
        for name, calls in table.items():
            key = key_function(name)
            grouped[key] = grouped.get(key, 0.0) + calls
        return grouped

    def same(a: Dict[str, float], b: Dict[str, float]) -> bool:
        return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= tolerance for k in a)

    for level, key_function in (("full name", full_name), ("base name", base_name)):
        a, b = by(key_function, kerntime), by(key_function, ncu)
        if same(a, b):
            return True, level, _rows(a, b)
    a, b = by(base_name, kerntime), by(base_name, ncu)
    return False, "differ", _rows(a, b)


def _rows(a: Dict[str, float], b: Dict[str, float]) -> List[dict]:
    names = list(a) + [n for n in b if n not in a]
    return [{"name": n, "kerntime_calls": a.get(n), "ncu_calls": b.get(n)} for n in names]


def is_blocking_kernel(name: str) -> bool:
    """kerntime's own event-fallback gate (src/measure/blocking_kernel.cu)."""
    return base_name(name).endswith("wait_for_release")


def is_flush_kernel(name: str) -> bool:
    """kerntime's own L2 flush read-back (src/measure/l2_flush.cu): flush work, never the op's."""
    return "l2_flush_read_back" in base_name(name)


def looks_like_memset(name: Optional[str]) -> bool:
    return bool(name) and "memset" in name.lower()
