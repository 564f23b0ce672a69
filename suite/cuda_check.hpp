#pragma once
// The suite checks every CUDA and cuBLAS call: a failure becomes kerntime::benchmark_failed naming
// the call, and the CLI records the state as failed and goes on. CUDA's checks, the owned
// buffers, streams and events are kerntime's own (kerntime/cuda.hpp); cuBLAS is loaded when the
// first state that needs it runs (kerntime/cublas.hpp), so the suite's program starts fast.

#include "kerntime/cublas.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"
