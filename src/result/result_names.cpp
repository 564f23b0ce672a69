#include "kerntime/result.hpp"

namespace kerntime {

std::string_view to_string(timing_backend b) {
  return b == timing_backend::cupti ? "cupti" : "events";
}

std::string_view to_string(activity_kind k) {
  switch (k) {
  case activity_kind::kernel:
    return "kernel";
  case activity_kind::memset:
    return "memset";
  case activity_kind::memcpy:
    return "memcpy";
  }
  return "?";
}

} // namespace kerntime
