#pragma once
// Decodes CUPTI activity records (the structs CUPTI 13 writes into activity buffers) into an
// activity_log. One decoder per measurement; not thread-safe (the session serialises calls).

#include <cupti_activity.h>

#include <string_view>
#include <unordered_map>

#include "cupti/activity_log.hpp"

namespace kerntime::detail {

// The names of the copies that stay on devices: a synchronous one does not make the host wait.
inline constexpr std::string_view device_to_device_copy = "[memcpy DtoD]";
inline constexpr std::string_view peer_to_peer_copy = "[memcpy PtoP]";

class record_decoder {
public:
  explicit record_decoder(activity_log& log) : log_(log) {}

  // Appends what `record` says to the log. Kinds kerntime does not use are ignored.
  void decode(const CUpti_Activity& record);

private:
  std::uint32_t intern(const char* name);
  std::uint32_t intern(std::string_view name);

  activity_log& log_;
  // CUPTI hands the same name pointer for every launch of a function: look that up first.
  std::unordered_map<const char*, std::uint32_t> by_pointer_;
  std::unordered_map<std::string, std::uint32_t> by_text_;
};

} // namespace kerntime::detail
