// The part of fmt that kerntime calls (fmt::format, fmt::runtime), on the C++20 standard
// library's <format>. CMakeLists.txt puts this folder on the include path only where fmt itself
// is not installed and the compiler has <format> (GCC 13 or newer: a PyTorch-on-CUDA machine
// such as Ubuntu 24.04 has it, Debian 12's GCC 12 has not and takes libfmt-dev), so that
// `pip install .` builds the Python module from a compiler, CUDA and pybind11 alone.
#pragma once

#include <format>
#include <string>
#include <string_view>
#include <utility>

namespace fmt {

using std::format;

// fmt::runtime(text): a format string known only at run time (fmt checks literals at compile
// time, as std::format does).
struct runtime_format_string {
  std::string_view text;
};

inline runtime_format_string runtime(std::string_view text) { return {text}; }

template <class... Args> std::string format(runtime_format_string text, Args&&... args) {
  return std::vformat(text.text, std::make_format_args(args...));
}

} // namespace fmt
