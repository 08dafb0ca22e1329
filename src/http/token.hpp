// Character classes and small field-value helpers of HTTP (RFC 9110 section 5), shared by the
// request and response parsers. Pure, constexpr where it can be, no allocation (but
// lowercase_copy, which the harness uses off the hot path).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ringside::http {

// The character classes the request line and header fields are made of, as one 256-entry table
// of bits: a parser checks a byte against a class with one load, and a scan over a run of one
// class (a header name, a value, a target) stops at the first byte outside it, which is either
// the expected delimiter or the start of an error.
enum CharClass : std::uint8_t {
  kTokenClass = 1,       // tchar (RFC 9110 section 5.6.2): methods and header names
  kFieldValueClass = 2,  // field-vchar, SP, HTAB (RFC 9110 section 5.5): header values, reasons
  kTargetClass = 4,      // VCHAR and obs-text, no whitespace: the request target's bytes
};

namespace token_detail {
constexpr std::array<std::uint8_t, 256> make_class_table() {
  std::array<std::uint8_t, 256> table{};
  for (int c = '0'; c <= '9'; ++c) table[c] |= kTokenClass;
  for (int c = 'a'; c <= 'z'; ++c) table[c] |= kTokenClass;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] |= kTokenClass;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) {
    table[static_cast<unsigned char>(c)] |= kTokenClass;
  }
  for (int c = 0; c < 256; ++c) {
    // VCHAR is 0x21-0x7e; obs-text 0x80-0xff.
    const bool visible = c > 0x20 && c != 0x7f;
    if (visible) table[c] |= kTargetClass | kFieldValueClass;
  }
  table[' '] |= kFieldValueClass;
  table['\t'] |= kFieldValueClass;
  return table;
}
inline constexpr auto kCharClasses = make_class_table();
}  // namespace token_detail

constexpr bool in_class(char c, CharClass cls) {
  return (token_detail::kCharClasses[static_cast<unsigned char>(c)] & cls) != 0;
}
constexpr bool is_token(char c) { return in_class(c, kTokenClass); }
constexpr bool is_value_char(char c) { return in_class(c, kFieldValueClass); }
constexpr bool is_target_char(char c) { return in_class(c, kTargetClass); }
constexpr bool is_whitespace(char c) { return c == ' ' || c == '\t'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
// HEXDIG's value, or -1 (chunk sizes, percent-encoding).
constexpr int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr bool is_hex(char c) { return hex_value(c) >= 0; }
constexpr char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// The ASCII lower-case copy of a token or value (a media type, a runtime's name, an error
// message): the harness's one copy of this loop.
inline std::string lowercase_copy(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// ASCII case-insensitive equality, for header names and tokens.
constexpr bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

constexpr std::string_view trim_whitespace(std::string_view s) {
  while (!s.empty() && is_whitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_whitespace(s.back())) s.remove_suffix(1);
  return s;
}

// Parses 1*DIGIT, refusing values that would not fit comfortably in 64 bits.
constexpr bool parse_length(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  std::uint64_t value = 0;
  for (char c : s) {
    if (!is_digit(c)) return false;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  out = value;
  return true;
}

// Calls `each` on every comma-separated, trimmed, non-empty element of a list-valued field;
// stops early (returning false) when `each` returns false.
template <class Each>
constexpr bool for_each_list_element(std::string_view list, Each&& each) {
  while (true) {
    auto comma = list.find(',');
    auto element = trim_whitespace(list.substr(0, comma));
    if (!element.empty() && !each(element)) return false;
    if (comma == std::string_view::npos) return true;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace ringside::http
