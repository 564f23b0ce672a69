#include "cupti/kernel_name.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kerntime::detail {

std::string readable_kernel_name(const char* name) {
  if (name[0] != '_' || name[1] != 'Z') {
    return name;
  }
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(name);
}

} // namespace kerntime::detail
