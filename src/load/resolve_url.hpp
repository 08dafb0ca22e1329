// Host names in load URLs: resolved once before any connection, and the one address every
// connection then uses. A name with several addresses (localhost with 127.0.0.1 and ::1, a name
// with A and AAAA records) gets the first, in the resolver's order, that accepts a TCP connection
// at start-up, as wrk and curl pick it: the server may listen on one family only, and a benchmark
// measures one server, not a spread over whatever the name lists. When none accepts, the first
// is used and the run counts connect errors, as with an IP address where nothing listens.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "load/target.hpp"

namespace ringside::load {

// Resolves each distinct host name of `targets` once (an IP literal is left as parse_url filled
// it) and fills in `url.address` and `url.resolved`. `connect_timeout_s` bounds each start-up
// connection tried when a name has several addresses. Returns "" or one line saying what failed
// (core::resolve_host's message) and sets `failed` to the index of the target whose name failed.
std::string resolve_targets(std::vector<Target>& targets, double connect_timeout_s,
                            std::size_t& failed);

// Of several addresses, the first that accepts a TCP connection within `connect_timeout_s` (each
// is connected to and closed at once); the first when none does. A lone address is not tried.
const core::SocketAddress& first_accepting(const std::vector<core::SocketAddress>& addresses,
                                           double connect_timeout_s);

// "api.internal resolved to ::1, 127.0.0.1; connections go to 127.0.0.1" for a URL whose host is
// a name, "" for an IP literal: the start-up line of `ringside load`.
std::string describe_resolution(const Url& url);

// The address connections to `url` go to, as text ("127.0.0.1", "::1").
std::string used_address_text(const Url& url);

}  // namespace ringside::load
