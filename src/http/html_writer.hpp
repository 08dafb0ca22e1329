// HTML text into an OutBuffer, for bodies built per request (TechEmpower's fortunes test escapes
// each message). Escapes the five characters that matter in element content and attribute values
// (&, <, >, ", '), as the fortunes verifier expects; UTF-8 passes through unchanged. Returns
// false, writing nothing, when the buffer lacks room.
#pragma once

#include <string_view>

#include "http/out_buffer.hpp"

namespace ringside::http {

[[nodiscard]] constexpr std::string_view html_escape_of(char c) {
  switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#x27;";
    default: return {};
  }
}

// Bytes `text` takes once escaped.
[[nodiscard]] constexpr std::size_t html_escaped_size(std::string_view text) {
  std::size_t size = 0;
  for (char c : text) {
    const std::string_view escape = html_escape_of(c);
    size += escape.empty() ? 1 : escape.size();
  }
  return size;
}

[[nodiscard]] inline bool append_html_escaped(OutBuffer& out, std::string_view text) {
  if (out.remaining() < html_escaped_size(text)) return false;
  std::size_t run = 0;  // plain bytes are copied in runs
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::string_view escape = html_escape_of(text[i]);
    if (escape.empty()) continue;
    out.append(text.substr(run, i - run));
    out.append(escape);
    run = i + 1;
  }
  out.append(text.substr(run));
  return true;
}

}  // namespace ringside::http
