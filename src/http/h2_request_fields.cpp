#include "http/h2_request_fields.hpp"

#include "http/token.hpp"

namespace ringside::http {
namespace {

constexpr std::uint8_t kMethod = 1;
constexpr std::uint8_t kScheme = 2;
constexpr std::uint8_t kAuthority = 4;
constexpr std::uint8_t kPath = 8;

// A field name as section 8.2.1 wants it: a token, no uppercase.
bool lowercase_token(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!is_token(c) || (c >= 'A' && c <= 'Z')) return false;
  }
  return true;
}

// Section 8.2.1: no NUL, CR or LF; no whitespace at either end.
bool valid_value(std::string_view value) {
  for (char c : value) {
    if (c == '\0' || c == '\r' || c == '\n') return false;
  }
  return value.empty() || (!is_whitespace(value.front()) && !is_whitespace(value.back()));
}

bool all_of(std::string_view text, bool (*allowed)(char)) {
  for (char c : text) {
    if (!allowed(c)) return false;
  }
  return true;
}

bool scheme_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '+' || c == '-' ||
         c == '.';
}
bool visible(char c) {
  return is_target_char(c);
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
    if (value.empty() || !all_of(value, is_token)) return false;
    connect_ = value == "CONNECT";
    options_ = value == "OPTIONS";
    bit = kMethod;
  } else if (name == ":scheme") {
    if (value.empty() || !all_of(value, scheme_char)) return false;
    scheme_http_ = equals_ignore_case(value, "http") || equals_ignore_case(value, "https");
    bit = kScheme;
  } else if (name == ":authority") {
    if (!all_of(value, visible)) return false;
    bit = kAuthority;
  } else if (name == ":path") {
    if (value.empty() || !all_of(value, visible)) return false;
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
