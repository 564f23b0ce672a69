"""The host time of one torch.topk call (x 1 Mi floats, k = 1024) under CUPTI, by the activity kinds
enabled, without kerntime in the way: CUPTI is driven directly through ctypes (subscribe, buffer
callbacks, enable, 100 calls timed, disable, flush, unsubscribe, finalize), and the records each
configuration delivered are counted by kind. Answers how much of the cost under kerntime's six
kinds (docs/queue.md: 127 us with nothing attached, 240-320 us under kerntime) each kind adds.
Run: python3 bench/queue/torch_launch_cost.py [path/to/libcupti.so.13]"""
import collections
import ctypes
import statistics
import sys
import time

import torch

MEMCPY, MEMSET, DRIVER, RUNTIME, CONCURRENT_KERNEL, EXTERNAL_CORRELATION = 1, 2, 4, 5, 10, 39
NAMES = {MEMCPY: "memcpy", MEMSET: "memset", DRIVER: "driver", RUNTIME: "runtime",
         CONCURRENT_KERNEL: "kernel", EXTERNAL_CORRELATION: "external_correlation"}
BUFFER_BYTES = 8 << 20

cupti = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/lib64/libcupti.so.13")
REQUEST = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
                           ctypes.POINTER(ctypes.c_size_t))
COMPLETE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p,
                            ctypes.c_size_t, ctypes.c_size_t)
CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p)

buffers = {}
delivered = collections.Counter()


@REQUEST
def request(buffer, size, max_records):
    data = ctypes.create_string_buffer(BUFFER_BYTES)
    address = ctypes.addressof(data)
    buffers[address] = data
    buffer[0] = address
    size[0] = BUFFER_BYTES
    max_records[0] = 0


@COMPLETE
def complete(context, stream, buffer, size, valid):
    record = ctypes.c_void_p(0)
    while cupti.cuptiActivityGetNextRecord(ctypes.c_void_p(buffer), ctypes.c_size_t(valid),
                                           ctypes.byref(record)) == 0:
        kind = ctypes.cast(record, ctypes.POINTER(ctypes.c_uint32))[0]
        delivered[NAMES.get(kind, str(kind))] += 1
    buffers.pop(buffer, None)


@CALLBACK
def ignore(userdata, domain, cbid, data):
    pass


def check(result, call):
    if result != 0:
        raise RuntimeError(f"{call} returned {result}")


x = torch.randn(1 << 20, device="cuda")


CALLS = 5 * 100  # the calls host_us_per_call makes


def host_us_per_call(calls=100, chunk=20):
    """Median over 5 samples of host microseconds per topk call; chunks of 20 calls (~440
    launches) with the GPU drained between, so no launch waits for a full queue."""
    samples = []
    for _ in range(5):
        spent = 0.0
        for _ in range(calls // chunk):
            t0 = time.perf_counter()
            for _ in range(chunk):
                torch.topk(x, 1024)
            spent += time.perf_counter() - t0
            torch.cuda.synchronize()
        samples.append(spent / calls * 1e6)
    return statistics.median(samples)


def measure(kinds):
    delivered.clear()
    subscriber = ctypes.c_void_p(0)
    if kinds:
        check(cupti.cuptiSubscribe(ctypes.byref(subscriber), ignore, None), "cuptiSubscribe")
        check(cupti.cuptiActivityRegisterCallbacks(request, complete),
              "cuptiActivityRegisterCallbacks")
        for kind in kinds:
            check(cupti.cuptiActivityEnable(kind), f"cuptiActivityEnable({NAMES[kind]})")
    us = host_us_per_call()
    if kinds:
        for kind in kinds:
            cupti.cuptiActivityDisable(kind)
        cupti.cuptiActivityFlushAll(1)
        cupti.cuptiUnsubscribe(subscriber)
        cupti.cuptiFinalize()
    return us


host_us_per_call()  # warm: kernels loaded, caches allocated
kernel = [CONCURRENT_KERNEL, MEMSET, MEMCPY]
configurations = [
    ("none", []),
    ("kernel_memset_memcpy", kernel),
    ("driver", kernel + [DRIVER]),
    ("driver_external_correlation", kernel + [DRIVER, EXTERNAL_CORRELATION]),
    ("runtime", kernel + [RUNTIME]),
    ("kerntime_kinds", kernel + [RUNTIME, DRIVER, EXTERNAL_CORRELATION]),
]
for round_ in (1, 2):
    for name, kinds in configurations:
        us = measure(kinds)
        counts = " ".join(f"{k}={v / CALLS:.1f}" for k, v in sorted(delivered.items()))
        print(f"RESULT torch_launch_cost round={round_} kinds={name} topk_host_us={us:.1f} "
              f"records_per_call: {counts}", flush=True)
