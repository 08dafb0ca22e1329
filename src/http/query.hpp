// Query-string parameters (the part of a target after '?'), as route handlers read them. Pure,
// no allocation: values are views into the query, not percent-decoded (the numbers and names the
// routes take need no decoding; a handler that wants text decodes it itself).
//
//   query_value("queries=20&x=1", "queries")  -> "20"
//   queries_count("queries=foo")              -> 1   (TechEmpower's rule)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ringside::http {

// The value of the first `name=value` pair (or `name` alone: an empty value); nothing when absent.
[[nodiscard]] constexpr std::optional<std::string_view> query_value(std::string_view query,
                                                                    std::string_view name) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      return eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

inline constexpr unsigned kMinQueries = 1;
inline constexpr unsigned kMaxQueries = 500;

// TechEmpower's `queries` parameter: a missing, empty, zero, negative or non-numeric value means
// 1; more than 500 means 500 (their verifier checks each of these).
[[nodiscard]] constexpr unsigned queries_count(std::string_view query) {
  const std::optional<std::string_view> value = query_value(query, "queries");
  if (!value || value->empty()) return kMinQueries;
  std::uint64_t n = 0;
  for (char c : *value) {
    if (c < '0' || c > '9') return kMinQueries;  // "-1", "foo", "2x"
    if (n <= kMaxQueries) n = n * 10 + static_cast<unsigned>(c - '0');  // stop growing past 500
  }
  if (n < kMinQueries) return kMinQueries;
  return n > kMaxQueries ? kMaxQueries : static_cast<unsigned>(n);
}

}  // namespace ringside::http
