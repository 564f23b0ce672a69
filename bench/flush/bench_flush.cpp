// Which L2 flush is cheapest and still leaves every iteration cold and clean (docs/flush.md)?
// Every flush candidate runs inside the timed work, ahead of the case (flush_l2 off), so CUPTI's
// per-kernel breakdown times the flush and the case's own kernels in the same iterations; the
// engine's own flush runs as kerntime runs it (flush_l2 on, flush_median_ns). Cases:
//   probe_read   — a 32 MiB read of the buffer the previous iteration read (L2-hot unflushed);
//   probe_dirty  — the same read, the previous iteration having then rewritten the buffer, so it
//                  left 32 MiB of dirty lines: their write-back must land in the flush;
//   probe_reused — the buffer read twice per iteration (the second read hits L2), as a GEMM
//                  re-reads its tiles: lines used twice outlive more of a flush than lines used
//                  once;
//   dram         — the same read rotating over 8 buffers (256 MiB), unflushed: DRAM's speed;
//   copy_16MiB, gemm_1024, gemm_2048, softmax_16MiB — ops whose data fits in L2;
//   empty        — an empty kernel: the wall time of a small state.
// Prints RESULT lines: one per candidate and case and round (the probe's read_kernel time apart
// from the case's other records), then kerntime's flush before (memset_read_2x) and now (engine).
// Reproduce: bench_flush on the GPU (scripts/gpu_check.sh runs it); docs/flush.md has the H200's.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bf16_gemm.hpp"
#include "cuda_check.hpp"
#include "fill_kernel.hpp"
#include "flush_candidates.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/statistics.hpp"
#include "read_kernel.hpp"
#include "result_line.hpp"
#include "row_softmax.hpp"
#include "spin_kernel.hpp"

namespace {

using namespace kerntime;
using bench::flush_method;

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t probe_bytes = 32 * mib;
constexpr int rounds = 3;

struct bench_case {
  std::string name;
  int input_sets;
  work_function work;
};

// A flush as the benchmark runs it: nothing, a candidate inside the work, or kerntime's own.
struct flush_choice {
  std::string name;
  std::optional<flush_method> method; // none and engine have no candidate
  double l2_multiple = 0;
  bool engine = false;
};

struct timing {
  double work_us = 0;  // the case's own records: the sum of their per-iteration medians
  double read_us = 0;  // of which the probe's read_kernel (both reads in probe_reused)
  double flush_us = 0; // the flush's records, the same way (engine: flush_median_ns)
  double wall_ms = 0;  // the whole measure() call
  double sm_mhz = 0;   // the median trial's SM clock measured on the GPU (0 if unread)
};

bool is_flush_row(const kernel_summary& k) {
  return k.kind == activity_kind::memset || k.name.find("flush") != std::string::npos;
}

timing run(const bench_case& c, const flush_choice& f, std::optional<bench::candidate_flush>& flush,
           cudaStream_t stream) {
  protocol p;
  p.trials = 7;
  p.input_sets = c.input_sets;
  p.flush_l2 = f.engine;
  p.backend = backend_request::cupti;
  const work_function work = [&](cudaStream_t s, int set) {
    if (flush) {
      flush->enqueue(s);
    }
    c.work(s, set);
  };
  const measurement_result r = measure(work, p, stream);
  timing t;
  for (const kernel_summary& k : r.kernels) {
    (is_flush_row(k) ? t.flush_us : t.work_us) += k.median_ns / 1e3;
    if (k.name.find("read_kernel") != std::string::npos) {
      t.read_us += k.median_ns / 1e3;
    }
  }
  std::vector<double> clocks;
  for (const trial_result& trial : r.trials) {
    if (trial.telemetry.measured_sm_clock_mhz) {
      clocks.push_back(*trial.telemetry.measured_sm_clock_mhz);
    }
  }
  t.sm_mhz = clocks.empty() ? 0 : median(std::move(clocks));
  if (f.engine) {
    t.flush_us = r.flush_median_ns / 1e3;
  }
  t.wall_ms = r.wall_seconds * 1e3;
  return t;
}

} // namespace

int main() {
  try {
    cuda_stream stream;
    const std::size_t l2_bytes = testkit::l2_bytes();

    device_buffer<int> sink(1);
    // probe_read, probe_dirty: one buffer; dram: eight, read in turn.
    device_buffer<char> probe(probe_bytes);
    device_buffer<char> dram_pool(8 * probe_bytes);
    KT_CUDA_CHECK(cudaMemset(probe.data(), 1, probe.bytes()));
    KT_CUDA_CHECK(cudaMemset(dram_pool.data(), 1, dram_pool.bytes()));
    // The copy's and the softmax's input sets are shifted by 256 bytes within one pool: other
    // addresses every iteration, yet all sets fit in L2 together, so unflushed they stay hot.
    constexpr std::size_t shift = 256;
    constexpr std::size_t copy_bytes = 16 * mib;
    device_buffer<char> copy_from(copy_bytes + 3 * shift);
    device_buffer<char> copy_to(copy_bytes + 3 * shift);
    KT_CUDA_CHECK(cudaMemset(copy_from.data(), 0x5a, copy_from.bytes()));
    constexpr std::size_t softmax_rows = 4096; // 16 MiB of fp32
    constexpr std::size_t softmax_values = softmax_rows * bench::softmax_row_length;
    device_buffer<float> softmax_in(softmax_values + 3 * shift / sizeof(float));
    device_buffer<float> softmax_out(softmax_values + 3 * shift / sizeof(float));
    KT_CUDA_CHECK(cudaMemset(softmax_in.data(), 0, softmax_in.bytes()));
    testkit::bf16_gemm gemm_1024(1024, 3);
    testkit::bf16_gemm gemm_2048(2048, 1);

    const std::vector<bench_case> cases = {
        {"probe_read", 1,
         [&](cudaStream_t s, int) {
           testkit::launch_read(s, probe.data(), probe_bytes, sink.data());
         }},
        {"probe_dirty", 1,
         [&](cudaStream_t s, int) {
           testkit::launch_read(s, probe.data(), probe_bytes, sink.data());
           testkit::launch_fill(s, reinterpret_cast<int*>(probe.data()), 1,
                                probe_bytes / sizeof(int));
         }},
        {"probe_reused", 1,
         [&](cudaStream_t s, int) {
           testkit::launch_read(s, probe.data(), probe_bytes, sink.data());
           testkit::launch_read(s, probe.data(), probe_bytes, sink.data());
         }},
        {"dram", 8,
         [&](cudaStream_t s, int set) {
           testkit::launch_read(s, dram_pool.data() + static_cast<std::size_t>(set) * probe_bytes,
                                probe_bytes, sink.data());
         }},
        {"copy_16MiB", 3,
         [&](cudaStream_t s, int set) {
           const std::size_t at = shift * static_cast<std::size_t>(set);
           KT_CUDA_CHECK(cudaMemcpyAsync(copy_to.data() + at, copy_from.data() + at, copy_bytes,
                                         cudaMemcpyDeviceToDevice, s));
         }},
        {"gemm_1024", 3, [&](cudaStream_t s, int set) { gemm_1024(s, set); }},
        {"gemm_2048", 1, [&](cudaStream_t s, int set) { gemm_2048(s, set); }},
        {"softmax_16MiB", 3,
         [&](cudaStream_t s, int set) {
           const std::size_t at = shift / sizeof(float) * static_cast<std::size_t>(set);
           bench::launch_row_softmax(s, softmax_in.data() + at, softmax_out.data() + at,
                                     softmax_rows);
         }},
        {"empty", 1, [](cudaStream_t s, int) { testkit::launch_empty(s); }},
    };
    const std::vector<flush_choice> flushes = {
        {"none", std::nullopt, 0, false},
        {"memset_2x", flush_method::memset, 2, false},
        {"memset_read_2x", flush_method::memset_read, 2, false},
        {"read_2x", flush_method::read, 2, false},
        {"read_lines_2x", flush_method::read_lines, 2, false},
        {"read_lines_3x", flush_method::read_lines, 3, false},
        {"read_lines_4x", flush_method::read_lines, 4, false},
        {"engine", std::nullopt, 0, true},
    };

    // [case][flush] -> one timing per round
    std::map<std::string, std::map<std::string, std::vector<timing>>> seen;
    for (int round = 0; round < rounds; ++round) {
      for (const flush_choice& f : flushes) {
        std::optional<bench::candidate_flush> flush;
        if (f.method) {
          flush.emplace(*f.method, static_cast<std::size_t>(f.l2_multiple * l2_bytes));
        }
        for (const bench_case& c : cases) {
          if (c.name == "dram" && f.name != "none") {
            continue; // DRAM's speed is the unflushed rotation; a flush changes nothing there
          }
          const timing t = run(c, f, flush, stream.get());
          seen[c.name][f.name].push_back(t);
          bench::result_line("flush_case")
              .add("round", round + 1)
              .add("flush", f.name)
              .add("case", c.name)
              .add("work_us", t.work_us)
              .add("read_us", t.read_us)
              .add("flush_us", t.flush_us)
              .add("wall_ms", t.wall_ms)
              .add("sm_mhz", t.sm_mhz)
              .print();
        }
      }
    }

    // kerntime's flush before and now: each number the mean of the rounds, with the spread of
    // the rounds (max - min) as the noise.
    const auto values = [&](const std::string& c, const std::string& f, double timing::*field) {
      std::vector<double> v;
      for (const timing& t : seen.at(c).at(f)) {
        v.push_back(t.*field);
      }
      return v;
    };
    const auto mean = [&](const std::string& c, const std::string& f, double timing::*field) {
      const std::vector<double> v = values(c, f, field);
      double sum = 0;
      for (const double x : v) {
        sum += x;
      }
      return sum / static_cast<double>(v.size());
    };
    const auto spread = [&](const std::string& c, const std::string& f, double timing::*field) {
      const std::vector<double> v = values(c, f, field);
      return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
    };
    // TB/s of the probe's 32 MiB read
    const auto tbps = [&](const std::string& c, const std::string& f) {
      return static_cast<double>(probe_bytes) / 1e6 / mean(c, f, &timing::read_us);
    };
    bench::result_line("flush")
        .add("old_flush_us", mean("probe_read", "memset_read_2x", &timing::flush_us))
        .add("new_flush_us", mean("probe_read", "engine", &timing::flush_us))
        .add("new_flush_dirty_us", mean("probe_dirty", "engine", &timing::flush_us))
        .add("old_flush_dirty_us", mean("probe_dirty", "memset_read_2x", &timing::flush_us))
        .add("probe_dram_tbps", tbps("dram", "none"))
        .add("probe_hot_tbps", tbps("probe_read", "none"))
        .add("probe_new_tbps", tbps("probe_read", "engine"))
        .add("probe_dirty_new_tbps", tbps("probe_dirty", "engine"))
        .add("probe_dirty_old_tbps", tbps("probe_dirty", "memset_read_2x"))
        .add("probe_dirty_memset_only_tbps", tbps("probe_dirty", "memset_2x"))
        .print();
    for (const std::string c :
         {"probe_reused", "copy_16MiB", "gemm_1024", "gemm_2048", "softmax_16MiB"}) {
      bench::result_line("flush_op")
          .add("case", c)
          .add("hot_us", mean(c, "none", &timing::work_us))
          .add("old_us", mean(c, "memset_read_2x", &timing::work_us))
          .add("new_us", mean(c, "engine", &timing::work_us))
          .add("noise_us", std::max(spread(c, "memset_read_2x", &timing::work_us),
                                    spread(c, "engine", &timing::work_us)))
          .add("old_sm_mhz", mean(c, "memset_read_2x", &timing::sm_mhz))
          .add("new_sm_mhz", mean(c, "engine", &timing::sm_mhz))
          .print();
    }
    bench::result_line("flush_small_state")
        .add("old_gpu_us", mean("empty", "memset_read_2x", &timing::flush_us) +
                               mean("empty", "memset_read_2x", &timing::work_us))
        .add("new_gpu_us",
             mean("empty", "engine", &timing::flush_us) + mean("empty", "engine", &timing::work_us))
        .add("old_wall_ms", mean("empty", "memset_read_2x", &timing::wall_ms))
        .add("new_wall_ms", mean("empty", "engine", &timing::wall_ms))
        .add("none_wall_ms", mean("empty", "none", &timing::wall_ms))
        .print();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_flush: %s\n", e.what());
    return 1;
  }
}
