#include "cuda/gpu_code.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#if !defined(KERNTIME_CUDA_ARCHITECTURES) || !defined(KERNTIME_DEFAULT_CUDA_ARCHITECTURES)
#error "KERNTIME_CUDA_ARCHITECTURES and KERNTIME_DEFAULT_CUDA_ARCHITECTURES come from the build"
#endif

namespace kerntime::detail {
namespace {

enum class code_kind { both, machine_code, ptx };

// "86-real" -> 86, machine code; nullopt for what is not one architecture.
std::optional<std::pair<gpu_architecture, code_kind>> parse_entry(std::string_view entry) {
  gpu_architecture arch;
  const char* const end = entry.data() + entry.size();
  const auto [rest, error] = std::from_chars(entry.data(), end, arch.number);
  if (error != std::errc() || arch.number <= 0) {
    return std::nullopt;
  }
  std::string_view suffix(rest, static_cast<std::size_t>(end - rest));
  if (suffix.starts_with('a')) {
    arch.specific = true;
    suffix.remove_prefix(1);
  }
  if (suffix.empty()) {
    return std::pair{arch, code_kind::both};
  }
  if (suffix == "-real") {
    return std::pair{arch, code_kind::machine_code};
  }
  if (suffix == "-virtual") {
    return std::pair{arch, code_kind::ptx};
  }
  return std::nullopt;
}

std::string arch_suffix(const gpu_architecture& a) {
  return fmt::format("{}{}", a.number, a.specific ? "a" : "");
}

// "sm_80 sm_90 compute_90": what the build holds, in the words of CUDA's tools.
std::string describe(const gpu_code& code) {
  std::string text;
  for (const auto& a : code.machine_code) {
    text += (text.empty() ? "sm_" : " sm_") + arch_suffix(a);
  }
  for (const auto& a : code.ptx) {
    text += (text.empty() ? "compute_" : " compute_") + arch_suffix(a);
  }
  return text;
}

// The build's list with machine code for `device` added, in CMake's syntax, ordered by number.
std::string list_with(const gpu_code& code, int device) {
  struct entry {
    gpu_architecture arch;
    bool machine_code;
    bool ptx;
  };
  std::vector<entry> entries;
  const auto add = [&entries](const gpu_architecture& a, bool machine_code, bool ptx) {
    const auto found =
        std::find_if(entries.begin(), entries.end(), [&a](const entry& e) { return e.arch == a; });
    if (found == entries.end()) {
      entries.push_back({a, machine_code, ptx});
    } else {
      found->machine_code = found->machine_code || machine_code;
      found->ptx = found->ptx || ptx;
    }
  };
  for (const auto& a : code.machine_code) {
    add(a, true, false);
  }
  for (const auto& a : code.ptx) {
    add(a, false, true);
  }
  add({device, false}, true, false);
  std::stable_sort(entries.begin(), entries.end(),
                   [](const entry& x, const entry& y) { return x.arch.number < y.arch.number; });
  std::string list;
  for (const auto& e : entries) {
    const char* const kind = e.machine_code && e.ptx ? "" : (e.machine_code ? "-real" : "-virtual");
    list += (list.empty() ? "" : ";") + arch_suffix(e.arch) + kind;
  }
  return list;
}

std::string_view explain(std::string_view load_error) {
  if (load_error == "cudaErrorUnsupportedPtxVersion") {
    return ": the driver is older than the CUDA toolkit that built kerntime";
  }
  return "";
}

} // namespace

std::optional<gpu_code> parse_cuda_architectures(std::string_view list) {
  gpu_code code;
  while (!list.empty()) {
    const std::size_t cut = list.find_first_of(";,");
    const std::string_view entry = list.substr(0, cut);
    list = cut == std::string_view::npos ? std::string_view() : list.substr(cut + 1);
    if (entry.empty()) {
      continue;
    }
    const auto parsed = parse_entry(entry);
    if (!parsed) {
      return std::nullopt;
    }
    if (parsed->second != code_kind::ptx) {
      code.machine_code.push_back(parsed->first);
    }
    if (parsed->second != code_kind::machine_code) {
      code.ptx.push_back(parsed->first);
    }
  }
  if (code.machine_code.empty() && code.ptx.empty()) {
    return std::nullopt;
  }
  return code;
}

gpu_code_verdict judge_gpu_code(int major, int minor, std::string_view built_list) {
  const auto code = parse_cuda_architectures(built_list);
  if (!code) {
    return {};
  }
  const int device = major * 10 + minor;
  // An architecture-specific entry (sm_90a) runs on its own compute capability alone.
  const auto runs_on_device = [device](const gpu_architecture& a, bool same_major_only) {
    if (a.specific) {
      return a.number == device;
    }
    return a.number <= device && (!same_major_only || a.number / 10 == device / 10);
  };
  gpu_code_verdict verdict{gpu_code_fit::none, 0};
  for (const auto& a : code->machine_code) {
    if (runs_on_device(a, true) && a.number > verdict.architecture) {
      verdict = {gpu_code_fit::machine_code, a.number};
    }
  }
  if (verdict.fit == gpu_code_fit::machine_code) {
    return verdict;
  }
  for (const auto& a : code->ptx) {
    if (runs_on_device(a, false) && a.number > verdict.architecture) {
      verdict = {gpu_code_fit::ptx_jit, a.number};
    }
  }
  return verdict;
}

std::string no_gpu_code_message(const gpu_identity& gpu, const gpu_code_lists& lists,
                                std::string_view load_error) {
  const int device = gpu.major * 10 + gpu.minor;
  const std::string sm = fmt::format("sm_{} ({})", device, gpu.name);
  // The default list is named only where it would run here and is not what was built.
  const bool default_fits =
      lists.built != lists.default_list &&
      judge_gpu_code(gpu.major, gpu.minor, lists.default_list).fit != gpu_code_fit::none;
  const std::string or_default =
      default_fits ? " (or leave it unset for the default list, which covers it)" : "";
  const auto code = parse_cuda_architectures(lists.built);
  if (!code) {
    return fmt::format("this kerntime build (CMAKE_CUDA_ARCHITECTURES={}) has no code for {} ({}); "
                       "rebuild with -DCMAKE_CUDA_ARCHITECTURES=\"{}-real\"{}",
                       lists.built, sm, load_error, device, or_default);
  }
  const std::string rebuild =
      fmt::format("-DCMAKE_CUDA_ARCHITECTURES=\"{}\"", list_with(*code, device));
  const gpu_code_verdict verdict = judge_gpu_code(gpu.major, gpu.minor, lists.built);
  switch (verdict.fit) {
  case gpu_code_fit::ptx_jit:
    return fmt::format("this kerntime build has no machine code for {}, and its PTX for "
                       "compute_{} could not be compiled for it by the driver ({}{}); update the "
                       "driver, or rebuild with {}{}",
                       sm, verdict.architecture, load_error, explain(load_error), rebuild,
                       or_default);
  case gpu_code_fit::machine_code:
    return fmt::format("kerntime's kernels could not be loaded on {} although this build has "
                       "machine code for sm_{} ({}); check the driver, or rebuild with {}{}",
                       sm, verdict.architecture, load_error, rebuild, or_default);
  case gpu_code_fit::none:
  case gpu_code_fit::unknown:
    break;
  }
  return fmt::format("this kerntime build has no code for {}: built for {}; rebuild with {}{}", sm,
                     describe(*code), rebuild, or_default);
}

std::string describe_gpu_code(const gpu_identity& gpu, const gpu_code_lists& lists) {
  const gpu_code_verdict verdict = judge_gpu_code(gpu.major, gpu.minor, lists.built);
  switch (verdict.fit) {
  case gpu_code_fit::machine_code:
    return fmt::format("machine code for sm_{}", verdict.architecture);
  case gpu_code_fit::ptx_jit:
    return fmt::format("PTX for compute_{}, compiled by the driver when first loaded",
                       verdict.architecture);
  case gpu_code_fit::unknown:
    return fmt::format("built for CMAKE_CUDA_ARCHITECTURES={}: known when first loaded",
                       lists.built);
  case gpu_code_fit::none:
    break;
  }
  return "none: " + no_gpu_code_message(gpu, lists, "");
}

bool is_gpu_code_error(int cuda_error) noexcept {
  switch (static_cast<cudaError_t>(cuda_error)) {
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorInvalidKernelImage:
  case cudaErrorUnsupportedPtxVersion:
  case cudaErrorInvalidPtx:
  case cudaErrorJitCompilerNotFound:
  case cudaErrorJitCompilationDisabled:
    return true;
  default:
    return false;
  }
}

gpu_code_lists this_build_gpu_code() noexcept {
  return {KERNTIME_CUDA_ARCHITECTURES, KERNTIME_DEFAULT_CUDA_ARCHITECTURES};
}

} // namespace kerntime::detail
