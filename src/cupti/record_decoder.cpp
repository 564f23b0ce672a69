#include "cupti/record_decoder.hpp"

#include <cstddef>
#include <string>

#include "cupti/kernel_name.hpp"
#include "cupti/tag_kinds.hpp"

namespace kerntime::detail {

// kerntime reads only the leading fields of each record. CUPTI appends fields in new record
// versions; these asserts pin the offsets this code was written against (CUPTI 13.0).
static_assert(offsetof(CUpti_ActivityKernel10, start) == 16);
static_assert(offsetof(CUpti_ActivityKernel10, end) == 24);
static_assert(offsetof(CUpti_ActivityKernel10, streamId) == 48);
static_assert(offsetof(CUpti_ActivityKernel10, correlationId) == 92);
static_assert(offsetof(CUpti_ActivityMemset4, start) == 16);
static_assert(offsetof(CUpti_ActivityMemcpy6, start) == 16);
static_assert(offsetof(CUpti_ActivityExternalCorrelation, externalId) == 8);
static_assert(offsetof(CUpti_ActivityAPI, cbid) == 4);
static_assert(offsetof(CUpti_ActivityAPI, correlationId) == 32);

namespace {

std::string_view memcpy_name(std::uint8_t copy_kind) {
  switch (copy_kind) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    return "[memcpy HtoD]";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    return "[memcpy DtoH]";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    return device_to_device_copy;
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
    return "[memcpy HtoH]";
  case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
    return peer_to_peer_copy;
  default:
    return "[memcpy]";
  }
}

} // namespace

std::uint32_t record_decoder::intern(std::string_view name) {
  const auto [it, inserted] =
      by_text_.try_emplace(std::string(name), static_cast<std::uint32_t>(log_.names.size()));
  if (inserted) {
    log_.names.emplace_back(name);
  }
  return it->second;
}

std::uint32_t record_decoder::intern(const char* name) {
  if (name == nullptr) {
    return intern(std::string_view("[unnamed kernel]"));
  }
  if (const auto it = by_pointer_.find(name); it != by_pointer_.end()) {
    return it->second;
  }
  const std::uint32_t index = intern(std::string_view(readable_kernel_name(name)));
  by_pointer_.emplace(name, index);
  return index;
}

void record_decoder::decode(const CUpti_Activity& record) {
  switch (record.kind) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
    const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
    log_.gpu.push_back(
        {activity_kind::kernel, intern(k.name), k.start, k.end, k.correlationId, k.streamId});
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    const auto& m = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
    log_.gpu.push_back({activity_kind::memset, intern(std::string_view("[memset]")), m.start, m.end,
                        m.correlationId, m.streamId});
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    const auto& m = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
    log_.gpu.push_back({activity_kind::memcpy, intern(memcpy_name(m.copyKind)), m.start, m.end,
                        m.correlationId, m.streamId});
    break;
  }
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
    const auto& e = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
    const auto kind = tag_kind_of(e.externalKind);
    if (!kind) {
      return; // another tool's tags are not ours to interpret
    }
    log_.tags.push_back({*kind, e.externalId, e.correlationId});
    break;
  }
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_DRIVER: {
    const auto& a = reinterpret_cast<const CUpti_ActivityAPI&>(record);
    log_.api_calls.push_back({a.correlationId, a.threadId, host_wait_of(a.kind, a.cbid), a.start,
                              a.end, a.kind, a.cbid});
    break;
  }
  default:
    break;
  }
}

} // namespace kerntime::detail
