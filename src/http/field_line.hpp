// Splits one header field line ("Name: value", RFC 9112 section 5) for both the request and the
// response parser, which map the outcome to their own error types.
#pragma once

#include <cstdint>
#include <string_view>

#include "http/request.hpp"
#include "http/token.hpp"

namespace ringside::http {

enum class FieldLineError : std::uint8_t {
  kNone,
  kObsoleteLineFolding,  // the line starts with whitespace
  kSpaceBeforeColon,     // "Name : value"
  kMalformed,            // no colon, an empty name, or a non-token character in the name
  kControlCharacter,     // in the value
};

// `line` excludes its line ending and is not empty. On success `header` holds views into it, the
// value trimmed of surrounding whitespace.
constexpr FieldLineError split_field_line(std::string_view line, Header& header) {
  if (is_whitespace(line.front())) return FieldLineError::kObsoleteLineFolding;
  std::size_t colon = 0;
  while (colon < line.size() && is_token(line[colon])) ++colon;
  if (colon == line.size()) return FieldLineError::kMalformed;
  if (line[colon] != ':') {
    // Name the error precisely: "Host : a" is whitespace before the colon, "Host a" has none.
    std::size_t after = colon;
    while (after < line.size() && is_whitespace(line[after])) ++after;
    bool colon_follows = after > colon && after < line.size() && line[after] == ':';
    return colon_follows ? FieldLineError::kSpaceBeforeColon : FieldLineError::kMalformed;
  }
  if (colon == 0) return FieldLineError::kMalformed;
  auto value = line.substr(colon + 1);
  for (char c : value) {
    if (!is_value_char(c)) return FieldLineError::kControlCharacter;
  }
  header = {line.substr(0, colon), trim_whitespace(value)};
  return FieldLineError::kNone;
}

}  // namespace ringside::http
