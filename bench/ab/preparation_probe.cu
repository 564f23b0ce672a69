// Where a preparation's offset comes from (issue 45, docs/ab.md "What moves a preparation"):
// the suite's process-bound states, rebuilt here so that one thing at a time can be changed,
// each prepared many times in one process under set-ups given by name, interleaved in a drawn
// order. One JSON line per preparation on stdout: the set-up, the state, where its first input
// landed, the clipped mean and median of its trial (the time `kerntime ab` reads), the spread of
// its readings, its on-GPU SM clock and, for the one-warp kernel, the SMs its blocks ran on.
//
//   bench_preparation_probe [--preparations 24] [--setups pad,nopad,...] [--states ...]
//
// Set-ups (each changes one thing against `pad`, the preparation `kerntime ab` makes):
//   pad       a drawn pad before the inputs (0-63 pages of 2 MiB + 1-256 steps of 512 B), 3 input
//             sets, the L2 flushed before every iteration;
//   nopad     no pad: the inputs land where the last preparation's did;
//   kept      one preparation per state for the whole process, measured again and again;
//   fixedpad  one of four pad sizes, in turn: the same placements visited again and again;
//   flushnew  pad, and the flush buffer made anew after it;
//   sets1     pad, one input set;
//   spread16  pad, 16 input sets, each behind a drawn pad of its own (placements averaged within
//             the trial);
//   hot       pad, no flush;
//   stream1   pad, one stream for every measurement of the process (else each makes its own);
//   streams8  pad, eight streams made at the start, the nth visit on stream n % 8;
//   code8     pad, the one-warp kernels from one of eight identical copies of their code
//             (visit n: copy n % 8), so their code lies at eight places;
//   graph     pad, each iteration's work launched as one CUDA graph (no per-kernel launches).
// It changes no setting of the card.

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include "kerntime/cuda.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/session.hpp"
#include "kerntime/statistics.hpp"
#include "measure/kept_resources.hpp"

namespace {

constexpr int smid_log_size = 1 << 16;

__device__ unsigned sm_id() {
  unsigned id = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// The suite's tiny_kernel, which also notes the SM it ran on.
__global__ void increment_kernel(int* counter, unsigned* smid_log) {
  if (threadIdx.x == 0) {
    const int v = *counter;
    smid_log[v & (smid_log_size - 1)] = sm_id();
    *counter = v + 1;
  }
}

// The same kernel at eight places in the module's code: does where the code lies move its time?
template <int Copy> __global__ void increment_copy(int* counter, unsigned* smid_log) {
  if (threadIdx.x == 0) {
    const int v = *counter;
    smid_log[(v + Copy) & (smid_log_size - 1)] = sm_id();
    *counter = v + 1;
  }
}

// tiny_kernel with the GPU's own clock read at the start and the end of every launch, so an
// iteration's span can be read without CUPTI: is a mode of the span in the GPU, or in the timer?
__global__ void increment_stamped(int* counter, unsigned long long* stamps) {
  if (threadIdx.x == 0) {
    const unsigned long long start = kerntime::global_timer_ns();
    const int v = *counter;
    *counter = v + 1;
    const unsigned long long end = kerntime::global_timer_ns();
    const auto slot = static_cast<std::size_t>(v & (smid_log_size - 1));
    stamps[2 * slot] = start;
    stamps[(2 * slot) + 1] = end;
  }
}

using increment_function = void (*)(int*, unsigned*);
constexpr increment_function increment_copies[] = {
    increment_copy<0>, increment_copy<1>, increment_copy<2>, increment_copy<3>,
    increment_copy<4>, increment_copy<5>, increment_copy<6>, increment_copy<7>};

__global__ void spin_kernel(std::uint64_t duration_ns) {
  kerntime::spin_for_ns(duration_ns);
}

__global__ void fill_kernel(std::uint32_t* out, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761U + seed;
    x ^= x >> 13;
    x *= 0x5bd1e995U;
    x ^= x >> 15;
    out[i] = x;
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// A cudaMalloc held for the preparation.
struct allocation {
  void* p = nullptr;
  explicit allocation(std::size_t bytes) {
    if (bytes > 0) {
      check(cudaMalloc(&p, bytes), "cudaMalloc");
    }
  }
  ~allocation() {
    if (p != nullptr) {
      (void)cudaFree(p);
    }
  }
  allocation(const allocation&) = delete;
  allocation& operator=(const allocation&) = delete;
  allocation(allocation&&) = delete;
  allocation& operator=(allocation&&) = delete;
};

constexpr std::size_t large_page = std::size_t{2} << 20;
constexpr std::size_t small_step = 512;

std::size_t drawn_pad(std::mt19937_64& draw, int large_pages) {
  return ((draw() % large_pages) * large_page) + ((1 + (draw() % 256)) * small_step);
}

// A state's inputs for one preparation: `sets` copies, each behind a pad of its own when spread.
struct prepared {
  std::vector<std::unique_ptr<allocation>> pads;
  std::vector<std::unique_ptr<allocation>> inputs;  // one per set
  std::vector<std::unique_ptr<allocation>> outputs; // one per set
  std::unique_ptr<allocation> temp;
  std::unique_ptr<allocation> smid_log;
  std::size_t temp_bytes = 0;
  kerntime::work_function work;
};

struct state_kind {
  std::string name;
  std::size_t input_bytes;
  std::size_t output_bytes;
  // After the buffers: temp storage, the work. The number is the kernel copy to use (code8).
  std::function<void(prepared&, std::size_t)> set_up;
};

constexpr std::size_t small_elements = 65536;

std::vector<state_kind> state_kinds() {
  std::vector<state_kind> kinds;
  kinds.push_back(
      {"reduce_sum/T=float/elements=65536", small_elements * sizeof(float), sizeof(float),
       [](prepared& p, std::size_t) {
         check(cub::DeviceReduce::Sum(nullptr, p.temp_bytes, static_cast<float*>(p.inputs[0]->p),
                                      static_cast<float*>(p.outputs[0]->p),
                                      static_cast<std::int64_t>(small_elements)),
               "temp size");
         p.temp = std::make_unique<allocation>(p.temp_bytes);
         p.work = [&p](cudaStream_t stream, int set) {
           std::size_t bytes = p.temp_bytes;
           (void)cub::DeviceReduce::Sum(p.temp->p, bytes, static_cast<float*>(p.inputs[set]->p),
                                        static_cast<float*>(p.outputs[set]->p),
                                        static_cast<std::int64_t>(small_elements), stream);
         };
       }});
  kinds.push_back({"radix_sort/elements=65536", small_elements * sizeof(std::uint32_t),
                   small_elements * sizeof(std::uint32_t), [](prepared& p, std::size_t) {
                     check(cub::DeviceRadixSort::SortKeys(
                               nullptr, p.temp_bytes, static_cast<std::uint32_t*>(p.inputs[0]->p),
                               static_cast<std::uint32_t*>(p.outputs[0]->p),
                               static_cast<std::int64_t>(small_elements)),
                           "temp size");
                     p.temp = std::make_unique<allocation>(p.temp_bytes);
                     p.work = [&p](cudaStream_t stream, int set) {
                       std::size_t bytes = p.temp_bytes;
                       (void)cub::DeviceRadixSort::SortKeys(
                           p.temp->p, bytes, static_cast<std::uint32_t*>(p.inputs[set]->p),
                           static_cast<std::uint32_t*>(p.outputs[set]->p),
                           static_cast<std::int64_t>(small_elements), 0, 32, stream);
                     };
                   }});
  for (int kernels : {1, 16}) {
    kinds.push_back({"tiny_kernel/kernels=" + std::to_string(kernels), sizeof(int), 0,
                     [kernels](prepared& p, std::size_t copy) {
                       p.smid_log = std::make_unique<allocation>(smid_log_size * sizeof(unsigned));
                       const increment_function kernel =
                           copy == 0 ? increment_kernel : increment_copies[(copy - 1) % 8];
                       p.work = [&p, kernels, kernel](cudaStream_t stream, int set) {
                         for (int k = 0; k < kernels; ++k) {
                           kernel<<<1, 32, 0, stream>>>(static_cast<int*>(p.inputs[set]->p),
                                                        static_cast<unsigned*>(p.smid_log->p));
                         }
                       };
                     }});
  }
  kinds.push_back({"tiny_kernel/kernels=16/stamped", sizeof(int), 0, [](prepared& p, std::size_t) {
                     p.smid_log = std::make_unique<allocation>(smid_log_size * 16);
                     p.work = [&p](cudaStream_t stream, int set) {
                       for (int k = 0; k < 16; ++k) {
                         increment_stamped<<<1, 32, 0, stream>>>(
                             static_cast<int*>(p.inputs[set]->p),
                             static_cast<unsigned long long*>(p.smid_log->p));
                       }
                     };
                   }});
  kinds.push_back({"spin/duration_us=10", 0, 0, [](prepared& p, std::size_t) {
                     p.work = [](cudaStream_t stream, int) {
                       spin_kernel<<<1, 1, 0, stream>>>(10'000);
                     };
                   }});
  return kinds;
}

struct setup {
  bool pad = true;
  bool fixed_pad = false;
  bool flush_anew = false;
  bool spread = false;
  bool flush = true;
  bool kept = false;
  int sets = 3;
  int streams = 0; // 0: a new stream per measurement (measure's own); 1: one for the process;
                   // 8: eight made at the start, visit n on stream n % 8
  bool code8 = false;
  bool graph = false;
};

setup setup_named(const std::string& name) {
  setup s;
  if (name == "nopad") {
    s.pad = false;
  } else if (name == "kept") {
    s.kept = true;
  } else if (name == "fixedpad") {
    s.fixed_pad = true;
  } else if (name == "flushnew") {
    s.flush_anew = true;
  } else if (name == "sets1") {
    s.sets = 1;
  } else if (name == "spread16") {
    s.sets = 16;
    s.spread = true;
  } else if (name == "hot") {
    s.flush = false;
  } else if (name == "stream1") {
    s.streams = 1;
  } else if (name == "streams8") {
    s.streams = 8;
  } else if (name == "code8") {
    s.code8 = true;
  } else if (name == "graph") {
    s.graph = true;
  } else if (name != "pad") {
    std::fprintf(stderr, "probe: no set-up %s\n", name.c_str());
    std::exit(2);
  }
  return s;
}

std::unique_ptr<prepared> prepare(const state_kind& kind, const setup& s, std::mt19937_64& draw,
                                  int visit) {
  auto p = std::make_unique<prepared>();
  if (s.pad) {
    const std::size_t bytes =
        s.fixed_pad ? ((static_cast<std::size_t>(visit % 4) * 9) * large_page) +
                          ((1 + static_cast<std::size_t>(visit % 4) * 61) * small_step)
                    : drawn_pad(draw, 64);
    p->pads.push_back(std::make_unique<allocation>(bytes));
  }
  for (int i = 0; i < s.sets; ++i) {
    if (s.spread && i > 0) {
      p->pads.push_back(std::make_unique<allocation>(drawn_pad(draw, 8)));
    }
    p->inputs.push_back(std::make_unique<allocation>(std::max<std::size_t>(kind.input_bytes, 4)));
    p->outputs.push_back(std::make_unique<allocation>(std::max<std::size_t>(kind.output_bytes, 4)));
    if (kind.input_bytes >= 4) {
      fill_kernel<<<64, 256>>>(static_cast<std::uint32_t*>(p->inputs.back()->p),
                               kind.input_bytes / 4, static_cast<std::uint32_t>(i));
    }
  }
  if (kind.name.rfind("reduce_sum", 0) == 0) {
    // floats in [0, 1): reinterpret the hashed words' top bits
    for (auto& in : p->inputs) {
      fill_kernel<<<64, 256>>>(static_cast<std::uint32_t*>(in->p), kind.input_bytes / 4, 7);
    }
  }
  if (kind.name.rfind("tiny_kernel", 0) == 0) {
    for (auto& in : p->inputs) {
      check(cudaMemset(in->p, 0, sizeof(int)), "memset");
    }
  }
  kind.set_up(*p, s.code8 ? 1 + static_cast<std::size_t>(visit % 8) : 0);
  check(cudaDeviceSynchronize(), "preparation");
  return p;
}

} // namespace

int main(int argc, char** argv) {
  int preparations = 24;
  std::vector<std::string> setups{"pad",      "nopad", "kept",     "fixedpad",
                                  "flushnew", "sets1", "spread16", "hot"};
  std::string only_state;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--preparations") {
      preparations = std::atoi(value.c_str());
    } else if (flag == "--setups") {
      setups.clear();
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = value.find(',', start);
        setups.push_back(value.substr(start, comma - start));
        if (comma == std::string::npos) {
          break;
        }
        start = comma + 1;
      }
    } else if (flag == "--state") {
      only_state = value;
    } else {
      std::fprintf(stderr, "probe: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context");
  const kerntime::session scope;
  std::vector<state_kind> kinds = state_kinds();
  if (!only_state.empty()) {
    std::erase_if(kinds, [&](const state_kind& k) { return k.name != only_state; });
  }
  // The order: every (set-up, state) `preparations` times, shuffled, so drift falls on all alike.
  struct visit {
    std::size_t setup;
    std::size_t kind;
  };
  std::vector<visit> order;
  for (std::size_t s = 0; s < setups.size(); ++s) {
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      for (int n = 0; n < preparations; ++n) {
        order.push_back({s, k});
      }
    }
  }
  std::mt19937_64 draw(
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::shuffle(order.begin(), order.end(), draw);
  std::map<std::pair<std::size_t, std::size_t>, int> visits;
  std::map<std::size_t, std::unique_ptr<prepared>> kept; // per state, for `kept`
  std::vector<cudaStream_t> streams(8);
  for (auto& st : streams) {
    check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
  }
  const auto pid = static_cast<long>(::getpid());
  for (const visit& v : order) {
    const state_kind& kind = kinds[v.kind];
    const bool stamped = kind.name.ends_with("/stamped");
    setup s = setup_named(setups[v.setup]);
    if (stamped) {
      s.sets = 1; // one counter: its value is the launch's number
      s.spread = false;
    }
    const int n = visits[{v.setup, v.kind}]++;
    if (s.flush_anew) {
      kerntime::detail::release_kept_flushes();
    }
    std::unique_ptr<prepared> fresh;
    prepared* p = nullptr;
    if (s.kept) {
      auto& slot = kept[v.kind];
      if (!slot) {
        slot = prepare(kind, s, draw, n);
      }
      p = slot.get();
    } else {
      fresh = prepare(kind, s, draw, n);
      p = fresh.get();
    }
    kerntime::protocol proto;
    proto.warmup = 10;
    proto.trials = 1;
    proto.repeats = 50;
    proto.input_sets = s.sets;
    proto.flush_l2 = s.flush;
    proto.launch = s.graph ? kerntime::launch_mode::graph : kerntime::launch_mode::stream;
    cudaStream_t stream = s.streams == 1   ? streams[0]
                          : s.streams == 8 ? streams[static_cast<std::size_t>(n % 8)]
                                           : nullptr;
    const kerntime::measurement_result r = kerntime::measure(p->work, proto, stream);
    std::vector<double> readings;
    std::vector<double> busy;
    for (const auto& it : r.trials.at(0).iterations) {
      readings.push_back(it.span_ns);
      busy.push_back(it.busy_ns);
    }
    const double step = r.timer_resolution_ns > 0 ? r.timer_resolution_ns : 32;
    const double mean = kerntime::clipped_mean(readings, step);
    const double busy_mean = kerntime::clipped_mean(busy, step);
    std::vector<double> sorted = readings;
    std::sort(sorted.begin(), sorted.end());
    double var = 0;
    double avg = 0;
    for (double x : readings) {
      avg += x;
    }
    avg /= static_cast<double>(readings.size());
    for (double x : readings) {
      var += (x - avg) * (x - avg);
    }
    const double sd = std::sqrt(var / static_cast<double>(readings.size() - 1));
    std::string sms;
    double inside = 0; // the clipped mean of the spans the kernels' own clock reads
    if (stamped) {
      int count = 0;
      check(cudaMemcpy(&count, p->inputs[0]->p, sizeof(int), cudaMemcpyDeviceToHost), "count");
      std::vector<unsigned long long> stamps(2 * smid_log_size);
      check(cudaMemcpy(stamps.data(), p->smid_log->p, stamps.size() * sizeof(stamps[0]),
                       cudaMemcpyDeviceToHost),
            "stamps");
      std::vector<double> spans;
      const int launches = 16;
      for (int i = 0; i < static_cast<int>(readings.size()); ++i) {
        const int first = count - ((static_cast<int>(readings.size()) - i) * launches);
        const int last = first + launches - 1;
        const auto a = static_cast<std::size_t>(first & (smid_log_size - 1));
        const auto b = static_cast<std::size_t>(last & (smid_log_size - 1));
        spans.push_back(static_cast<double>(stamps[(2 * b) + 1] - stamps[2 * a]));
      }
      inside = kerntime::clipped_mean(spans, step);
    } else if (p->smid_log) {
      // The counter of set 0 ran every launch of set 0; the last `repeats` launches of the trial
      // are logged at counter values before the final one. Only read for one input set.
      int count = 0;
      check(cudaMemcpy(&count, p->inputs[0]->p, sizeof(int), cudaMemcpyDeviceToHost), "count");
      std::vector<unsigned> log(smid_log_size);
      check(cudaMemcpy(log.data(), p->smid_log->p, log.size() * sizeof(unsigned),
                       cudaMemcpyDeviceToHost),
            "smid log");
      std::map<unsigned, int> histogram;
      const int seen = std::min(count, 200);
      for (int i = count - seen; i < count; ++i) {
        histogram[log[static_cast<std::size_t>(i) & (smid_log_size - 1)]]++;
      }
      for (const auto& [sm, c] : histogram) {
        sms += (sms.empty() ? "\"" : ",\"") + std::to_string(sm) + "\":" + std::to_string(c);
      }
    }
    const auto& tel = r.trials.at(0).telemetry;
    std::printf("{\"pid\":%ld,\"setup\":\"%s\",\"state\":\"%s\",\"visit\":%d,\"input\":%llu,"
                "\"clipped_mean\":%.3f,\"busy\":%.3f,\"inside\":%.3f,\"median\":%.3f,\"reading_"
                "sd\":%.3f,\"n\":%zu,"
                "\"step\":%.1f,\"sm_clock_mhz\":%.1f,\"sms\":{%s}}\n",
                pid, setups[v.setup].c_str(), kind.name.c_str(), n,
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p->inputs[0]->p)),
                mean, busy_mean, inside, sorted[sorted.size() / 2], sd, readings.size(), step,
                tel.measured_sm_clock_mhz.value_or(0), sms.c_str());
  }
  return 0;
}
