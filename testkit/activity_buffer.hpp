#pragma once
// Builds real CUPTI 13 activity records, laid out one after another in one 8-byte-aligned buffer as
// CUPTI lays them out, and feeds them through kerntime's real decoder.

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cupti/activity_log.hpp"
#include "cupti/record_decoder.hpp"

namespace kerntime::testing {

class activity_buffer {
  // The fields every timed record (GPU work, API calls) has.
  template <typename Record>
  static Record timed_record(CUpti_ActivityKind kind, std::uint64_t start, std::uint64_t end,
                             std::uint32_t correlation) {
    Record r{};
    r.kind = kind;
    r.start = start;
    r.end = end;
    r.correlationId = correlation;
    return r;
  }
  // The fields every GPU record (kernel, memset, memcpy) has.
  template <typename Record>
  static Record gpu_record(CUpti_ActivityKind kind, std::uint64_t start, std::uint64_t end,
                           std::uint32_t correlation, std::uint32_t stream) {
    auto r = timed_record<Record>(kind, start, end, correlation);
    r.streamId = stream;
    return r;
  }

public:
  activity_buffer() { bytes_.reserve(1 << 20); }

  void kernel(const char* name, std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
              std::uint32_t stream = 7) {
    auto k = gpu_record<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, start, end,
                                                correlation, stream);
    k.name = name;
    append(k);
  }

  void memset(std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
              std::uint32_t stream = 7) {
    auto m = gpu_record<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET, start, end, correlation,
                                               stream);
    m.bytes = 1 << 20;
    append(m);
  }

  void memcpy(std::uint8_t copy_kind, std::uint64_t start, std::uint64_t end,
              std::uint32_t correlation, std::uint32_t stream = 7) {
    auto m = gpu_record<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY, start, end, correlation,
                                               stream);
    m.copyKind = copy_kind;
    append(m);
  }

  void tag(CUpti_ExternalCorrelationKind kind, std::uint64_t id, std::uint32_t correlation) {
    CUpti_ActivityExternalCorrelation e{};
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = kind;
    e.externalId = id;
    e.correlationId = correlation;
    append(e);
  }
  void iteration_tag(std::uint64_t id, std::uint32_t correlation) {
    tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id, correlation);
  }
  void flush_tag(std::uint64_t id, std::uint32_t correlation) {
    tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, id, correlation);
  }
  // A kernel launched as iteration `id`: its tag and its record, under one correlation id.
  void iteration_kernel(std::uint64_t id, const char* name, std::uint64_t start, std::uint64_t end,
                        std::uint32_t correlation) {
    iteration_tag(id, correlation);
    kernel(name, start, end, correlation);
  }

  // `cbid`: the call, as CUPTI_RUNTIME_TRACE_CBID_* or CUPTI_DRIVER_TRACE_CBID_* numbers it.
  // `start`/`end`: when the call ran on the host (ns, the GPU records' clock); 0: not given.
  void api(CUpti_ActivityKind kind, std::uint32_t correlation, std::uint32_t thread,
           std::uint32_t cbid = 0, std::uint64_t start = 0, std::uint64_t end = 0) {
    auto a = timed_record<CUpti_ActivityAPI>(kind, start, end, correlation);
    a.cbid = cbid;
    a.threadId = thread;
    a.processId = 42;
    append(a);
  }

  // The records in order, as CUPTI's iterator hands them out.
  [[nodiscard]] std::vector<const CUpti_Activity*> records() const {
    std::vector<const CUpti_Activity*> out;
    for (const std::size_t offset : offsets_) {
      out.push_back(reinterpret_cast<const CUpti_Activity*>(bytes_.data() + offset));
    }
    return out;
  }

  [[nodiscard]] const std::vector<std::size_t>& offsets() const { return offsets_; }
  [[nodiscard]] std::uint8_t* data() { return bytes_.data(); }
  [[nodiscard]] std::size_t size() const { return bytes_.size(); }

  // Decodes every record with kerntime's decoder into a fresh log.
  [[nodiscard]] detail::activity_log decode() const {
    detail::activity_log log;
    detail::record_decoder decoder(log);
    for (const auto* record : records()) {
      decoder.decode(*record);
    }
    return log;
  }

private:
  template <typename T> void append(const T& record) {
    const std::size_t offset = (bytes_.size() + 7) & ~std::size_t{7};
    bytes_.resize(offset + sizeof(T));
    std::memcpy(bytes_.data() + offset, &record, sizeof(T));
    offsets_.push_back(offset);
  }

  std::vector<std::uint8_t> bytes_;
  std::vector<std::size_t> offsets_;
};

} // namespace kerntime::testing
