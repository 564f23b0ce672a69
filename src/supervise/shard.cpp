#include "supervise/shard.hpp"

#include <charconv>

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// The largest shard count: far above any cluster, small enough that INDEX/COUNT stays an int.
constexpr int most_shards = 1'000'000;

bool read_int(std::string_view text, int& value) {
  const char* end = text.data() + text.size();
  const auto [stop, problem] = std::from_chars(text.data(), end, value);
  return !text.empty() && problem == std::errc() && stop == end;
}

} // namespace

shard_spec parse_shard(std::string_view text) {
  const auto fail = [&](std::string_view problem) {
    return invalid_argument(fmt::format("--shard {}: {}; give INDEX/COUNT with 0 <= INDEX < "
                                        "COUNT, e.g. --shard 0/8 for the first of 8 shards",
                                        text, problem));
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    throw fail("there is no '/'");
  }
  shard_spec shard;
  if (!read_int(text.substr(0, slash), shard.index) ||
      !read_int(text.substr(slash + 1), shard.count)) {
    throw fail("INDEX and COUNT must be whole numbers");
  }
  if (shard.count < 1 || shard.count > most_shards) {
    throw fail(fmt::format("COUNT must be between 1 and {}", most_shards));
  }
  if (shard.index < 0 || shard.index >= shard.count) {
    throw fail("INDEX counts from 0 and must be below COUNT (Slurm's SLURM_ARRAY_TASK_ID of an "
               "array 0-(COUNT-1))");
  }
  return shard;
}

std::vector<std::size_t> shard_indices(std::size_t plan_states, shard_spec shard) {
  std::vector<std::size_t> indices;
  const auto step = static_cast<std::size_t>(shard.count);
  for (auto i = static_cast<std::size_t>(shard.index); i < plan_states; i += step) {
    indices.push_back(i);
  }
  return indices;
}

} // namespace kerntime::detail
