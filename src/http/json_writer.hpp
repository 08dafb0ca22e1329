// JSON text into an OutBuffer, for bodies built per request (TechEmpower wants /json serialised
// per request, not a constant). Only what the routes need: strings (escaped per RFC 8259 section
// 7) and unsigned numbers. Each returns false, writing nothing, when the buffer lacks room.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "http/out_buffer.hpp"

namespace ringside::http {

namespace json_detail {
// For each byte: 0 when it stands for itself in a JSON string, else the length of its escape
// (\" \\ \b \f \n \r \t, or \u00XX for the other control bytes). A table keeps the scan at a
// load and a branch per byte: names and emails are mostly plain runs.
inline constexpr auto kEscapeSize = [] {
  std::array<std::uint8_t, 256> sizes{};
  for (int c = 0; c < 0x20; ++c) sizes[c] = 6;
  for (char c : {'"', '\\', '\b', '\f', '\n', '\r', '\t'}) sizes[static_cast<unsigned char>(c)] = 2;
  return sizes;
}();
}  // namespace json_detail

// Bytes `text` takes as a JSON string, quotes included.
[[nodiscard]] constexpr std::size_t json_string_size(std::string_view text) {
  std::size_t size = 2 + text.size();
  for (char c : text) {
    const std::uint8_t escape = json_detail::kEscapeSize[static_cast<unsigned char>(c)];
    if (escape != 0) size += escape - 1;
  }
  return size;
}

[[nodiscard]] inline bool append_json_string(OutBuffer& out, std::string_view text) {
  // Room for the worst case (every byte \u00XX) needs no counting pass.
  if (out.remaining() < 2 + 6 * text.size() && out.remaining() < json_string_size(text)) {
    return false;
  }
  constexpr char kHex[] = "0123456789abcdef";
  out.append("\"");
  std::size_t run = 0;  // plain bytes are copied in runs
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (json_detail::kEscapeSize[u] == 0) continue;
    out.append(text.substr(run, i - run));
    run = i + 1;
    switch (text[i]) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default: {
        const char unicode[6] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 15]};
        out.append({unicode, 6});
      }
    }
  }
  out.append(text.substr(run));
  out.append("\"");
  return true;
}

[[nodiscard]] inline bool append_json_number(OutBuffer& out, std::uint64_t value) {
  if (out.remaining() < 20) return false;
  out.append_decimal(value);
  return true;
}

}  // namespace ringside::http
