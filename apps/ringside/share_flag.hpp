// `ringside load --share K/N`: this generator runs part K (from 0) of a load split N ways, so
// that N copies of one command line (a Kubernetes Indexed Job's pod template, where each pod
// knows only its index, and a scratch image has no shell to divide with) add up to the load
// given. Pure, unit-tested in tests/unit/apps/share_flag_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "load/load_config.hpp"

namespace ringside::apps {

// At most this many parts: each needs a connection of its own.
inline constexpr std::uint64_t kMaxShares = load::kMaxConnections;

// "K/N" with 0 <= K < N; or nothing, with `error` set to one line saying what is wrong and what
// to give instead (without the flag's name).
std::optional<load::LoadShare> parse_share(std::string_view text, std::string& error);

// Part `share.index` of `total` split `share.of` ways (load/load_config.hpp): the parts add up.
using load::share_of;

// Splits the config's totals (connections, -n requests, -R rate) down to this generator's part
// and names it share-K-of-N when it has no --tag. Returns "" or one line naming --share: a part
// with no connection, or with no request under -n, cannot run.
std::string apply_share(load::LoadConfig& config, load::LoadShare share);

}  // namespace ringside::apps
