// JSON text into an OutBuffer, for bodies built per request (TechEmpower wants /json serialised
// per request, not a constant). Only what the routes need: strings (escaped per RFC 8259 section
// 7) and unsigned numbers. Each returns false, writing nothing, when the buffer lacks room.
#pragma once

#include <cstdint>
#include <string_view>

#include "http/out_buffer.hpp"

namespace ringside::http {

// Bytes `text` takes as a JSON string, quotes included.
[[nodiscard]] constexpr std::size_t json_string_size(std::string_view text) {
  std::size_t size = 2;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
      size += 2;
    } else if (u < 0x20) {
      size += 6;  // \u00XX
    } else {
      size += 1;
    }
  }
  return size;
}

[[nodiscard]] inline bool append_json_string(OutBuffer& out, std::string_view text) {
  if (out.remaining() < json_string_size(text)) return false;
  constexpr char kHex[] = "0123456789abcdef";
  out.append("\"");
  std::size_t run = 0;  // plain bytes are copied in runs
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    const char* escape = nullptr;
    switch (c) {
      case '"': escape = "\\\""; break;
      case '\\': escape = "\\\\"; break;
      case '\b': escape = "\\b"; break;
      case '\f': escape = "\\f"; break;
      case '\n': escape = "\\n"; break;
      case '\r': escape = "\\r"; break;
      case '\t': escape = "\\t"; break;
      default: break;
    }
    if (escape == nullptr && u >= 0x20) continue;
    out.append(text.substr(run, i - run));
    run = i + 1;
    if (escape != nullptr) {
      out.append(escape);
    } else {
      const char unicode[6] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 15]};
      out.append({unicode, 6});
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
