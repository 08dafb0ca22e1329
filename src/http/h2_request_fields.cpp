#include "http/h2_request_fields.hpp"

#include <array>

#include "http/token.hpp"

namespace ringside::http {
namespace {

constexpr std::uint8_t kMethod = 1;
constexpr std::uint8_t kScheme = 2;
constexpr std::uint8_t kAuthority = 4;
constexpr std::uint8_t kPath = 8;

// Bytes a field name may hold (section 8.2.1: a token, no uppercase), and bytes a value may not
// (NUL, CR, LF): one table lookup a byte.
constexpr std::uint8_t kNameByte = 1;
constexpr std::uint8_t kBadValueByte = 2;
constexpr std::array<std::uint8_t, 256> kFieldBytes = [] {
  std::array<std::uint8_t, 256> table{};
  for (int c = 0; c < 256; ++c) {
    if (is_token(static_cast<char>(c)) && !(c >= 'A' && c <= 'Z')) table[c] |= kNameByte;
  }
  table['\0'] |= kBadValueByte;
  table['\r'] |= kBadValueByte;
  table['\n'] |= kBadValueByte;
  return table;
}();

bool lowercase_token(std::string_view name) {
  std::uint8_t all = name.empty() ? 0 : kNameByte;
  for (char c : name) all &= kFieldBytes[static_cast<unsigned char>(c)];
  return all != 0;
}

// Section 8.2.1: no NUL, CR or LF; no whitespace at either end.
bool valid_value(std::string_view value) {
  std::uint8_t any = 0;
  for (char c : value) any |= kFieldBytes[static_cast<unsigned char>(c)];
  return (any & kBadValueByte) == 0 &&
         (value.empty() || (!is_whitespace(value.front()) && !is_whitespace(value.back())));
}

// Whether every byte of `text` is in the class (token.hpp's table: one lookup a byte).
bool all_in(std::string_view text, CharClass cls) {
  bool all = true;
  for (char c : text) all &= in_class(c, cls);
  return all;
}

bool valid_scheme(std::string_view scheme) {
  for (char c : scheme) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
                         c == '+' || c == '-' || c == '.';
    if (!allowed) return false;
  }
  return !scheme.empty();
}

// Section 8.2.2: fields that belong to one HTTP/1.1 connection.
bool connection_specific(std::string_view name) {
  return name == "connection" || name == "keep-alive" || name == "proxy-connection" ||
         name == "transfer-encoding" || name == "upgrade";
}

// A content-length's digits, or -1.
std::int64_t parse_length(std::string_view value) {
  if (value.empty() || value.size() > 18) return -1;
  std::int64_t length = 0;
  for (char c : value) {
    if (!is_digit(c)) return -1;
    length = length * 10 + (c - '0');
  }
  return length;
}

}  // namespace

bool H2RequestFields::accept(std::string_view name, std::string_view value) {
  if (!name.empty() && name.front() == ':') {
    return block_ == H2FieldBlock::kRequest && !regular_seen_ && accept_pseudo(name, value);
  }
  regular_seen_ = true;
  if (!lowercase_token(name) || !valid_value(value) || connection_specific(name)) return false;
  if (name == "te") return equals_ignore_case(value, "trailers");
  if (name == "content-length") {
    if (content_length_ >= 0) return false;  // given twice
    content_length_ = parse_length(value);
    return content_length_ >= 0;
  }
  return true;
}

bool H2RequestFields::accept_pseudo(std::string_view name, std::string_view value) {
  std::uint8_t bit = 0;
  if (name == ":method") {
    if (value.empty() || !all_in(value, kTokenClass)) return false;
    connect_ = value == "CONNECT";
    options_ = value == "OPTIONS";
    bit = kMethod;
  } else if (name == ":scheme") {
    if (!valid_scheme(value)) return false;
    scheme_http_ = equals_ignore_case(value, "http") || equals_ignore_case(value, "https");
    bit = kScheme;
  } else if (name == ":authority") {
    if (!all_in(value, kTargetClass)) return false;
    bit = kAuthority;
  } else if (name == ":path") {
    if (value.empty() || !all_in(value, kTargetClass)) return false;
    path_asterisk_ = value == "*";
    path_origin_ = value.front() == '/';
    bit = kPath;
  } else {
    return false;  // :status, :protocol (not offered), or unknown
  }
  if ((pseudo_seen_ & bit) != 0) return false;
  pseudo_seen_ |= bit;
  return true;
}

bool H2RequestFields::complete() const {
  if (block_ == H2FieldBlock::kTrailers) return true;
  if ((pseudo_seen_ & kMethod) == 0) return false;
  if (connect_) return pseudo_seen_ == (kMethod | kAuthority);
  if ((pseudo_seen_ & (kScheme | kPath)) != (kScheme | kPath)) return false;
  return !scheme_http_ || path_origin_ || (path_asterisk_ && options_);
}

}  // namespace ringside::http
