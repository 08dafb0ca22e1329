// Tells header field names apart for the request parser: the five it acts on (framing, Host,
// Connection, Expect) and, for speed, the names browsers and load generators send on every
// request.
//
//   FieldName f = field_name("Content-Length");            // any case: FieldName::kContentLength
//   KnownField k = match_known_field(p, end);    // at the start of a header line
//   if (k.name_size != 0) ...                    // p[0, name_size) is a known name, then ':'
//
// match_known_field reads raw, unvalidated bytes, and folds case only where the known name has a
// letter (OR 0x20 is the bit that tells 'A' from 'a'); every other byte must be exact, so a match
// is always a valid token followed by ':' ("Content\rLength:" does not match). A name it does not
// know is simply not matched: the caller then scans the name byte by byte.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "http/byte_scan.hpp"
#include "http/token.hpp"

namespace ringside::http {

enum class FieldName : std::uint8_t {
  kOther,
  kContentLength,
  kTransferEncoding,
  kHost,
  kConnection,
  kExpect,
};

// The FieldName of a token, in any case. Length first: most names cost one switch.
constexpr FieldName field_name(std::string_view token) {
  switch (token.size()) {
    case 4: return equals_ignore_case(token, "host") ? FieldName::kHost : FieldName::kOther;
    case 6: return equals_ignore_case(token, "expect") ? FieldName::kExpect : FieldName::kOther;
    case 10:
      return equals_ignore_case(token, "connection") ? FieldName::kConnection : FieldName::kOther;
    case 14:
      return equals_ignore_case(token, "content-length") ? FieldName::kContentLength
                                                         : FieldName::kOther;
    case 17:
      return equals_ignore_case(token, "transfer-encoding") ? FieldName::kTransferEncoding
                                                            : FieldName::kOther;
    default: return FieldName::kOther;
  }
}

struct KnownField {
  std::size_t name_size = 0;  // 0: no known name here
  FieldName field = FieldName::kOther;
};

namespace field_name_detail {

// A known "name:" as up to three overlapping little-endian words (at 0, 8 and size-8; or two
// 4-byte words at 0 and size-4 for a name shorter than 8), with the bits to OR in before
// comparing: 0x20 under each letter, nothing under '-' and ':'.
struct FoldedName {
  std::size_t size = 0;  // with the colon
  FieldName field = FieldName::kOther;
  std::array<std::size_t, 3> at{};
  std::array<std::uint64_t, 3> text{};
  std::array<std::uint64_t, 3> fold{};
};

constexpr FoldedName fold_name(std::string_view lower_with_colon, FieldName field) {
  FoldedName n;
  n.size = lower_with_colon.size();
  n.field = field;
  const bool wide = n.size >= 8;
  const std::size_t width = wide ? 8 : 4;
  n.at = wide ? std::array<std::size_t, 3>{0, n.size >= 16 ? 8 : n.size - 8, n.size - 8}
              : std::array<std::size_t, 3>{0, n.size - 4, n.size - 4};
  for (std::size_t w = 0; w < 3; ++w) {
    for (std::size_t i = 0; i < width; ++i) {
      const char c = lower_with_colon[n.at[w] + i];
      const bool letter = c >= 'a' && c <= 'z';
      n.text[w] |= std::uint64_t(static_cast<unsigned char>(c)) << (8 * i);
      n.fold[w] |= std::uint64_t(letter ? 0x20 : 0) << (8 * i);
    }
  }
  return n;
}

inline std::uint32_t load_half_word(const char* p) {
  std::uint32_t word;
  std::memcpy(&word, p, sizeof word);
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap32(word);
  return word;
}

// [p, p + name.size) is `name` up to the case of its letters; the caller has checked the size.
// A template on the name, so that its words are immediates and the loop is unrolled.
template <const FoldedName& name>
bool equals_folded(const char* p) {
  // One compare of the words' combined differences, not three short-circuited ones: no branches.
  if constexpr (name.size >= 8) {
    return (((scan_detail::load_word(p + name.at[0]) | name.fold[0]) ^ name.text[0]) |
            ((scan_detail::load_word(p + name.at[1]) | name.fold[1]) ^ name.text[1]) |
            ((scan_detail::load_word(p + name.at[2]) | name.fold[2]) ^ name.text[2])) == 0;
  } else {
    return (((load_half_word(p + name.at[0]) | name.fold[0]) ^ name.text[0]) |
            ((load_half_word(p + name.at[1]) | name.fold[1]) ^ name.text[1])) == 0;
  }
}

template <const FoldedName& name>
bool starts_with_name(const char* p, std::size_t available) {
  return available >= name.size && equals_folded<name>(p);
}

inline constexpr FoldedName kHost = fold_name("host:", FieldName::kHost);
inline constexpr FoldedName kUserAgent = fold_name("user-agent:", FieldName::kOther);
inline constexpr FoldedName kAccept = fold_name("accept:", FieldName::kOther);
inline constexpr FoldedName kAcceptLanguage = fold_name("accept-language:", FieldName::kOther);
inline constexpr FoldedName kAcceptEncoding = fold_name("accept-encoding:", FieldName::kOther);
inline constexpr FoldedName kConnection = fold_name("connection:", FieldName::kConnection);
inline constexpr FoldedName kContentLength =
    fold_name("content-length:", FieldName::kContentLength);
inline constexpr FoldedName kContentType = fold_name("content-type:", FieldName::kOther);
inline constexpr FoldedName kCacheControl = fold_name("cache-control:", FieldName::kOther);
inline constexpr FoldedName kCookie = fold_name("cookie:", FieldName::kOther);
inline constexpr FoldedName kTransferEncoding =
    fold_name("transfer-encoding:", FieldName::kTransferEncoding);
inline constexpr FoldedName kExpect = fold_name("expect:", FieldName::kExpect);

}  // namespace field_name_detail

// The known name at p (followed by its ':', which name_size leaves out), or {} for any other.
inline KnownField match_known_field(const char* p, const char* end) {
  using namespace field_name_detail;
  const auto available = static_cast<std::size_t>(end - p);
  auto known = [](const FoldedName& name) { return KnownField{name.size - 1, name.field}; };
  if (available == 0) return {};
  switch (*p | 0x20) {
    case 'h':
      if (starts_with_name<kHost>(p, available)) return known(kHost);
      break;
    case 'u':
      if (starts_with_name<kUserAgent>(p, available)) return known(kUserAgent);
      break;
    case 'a':
      if (starts_with_name<kAccept>(p, available)) return known(kAccept);
      if (starts_with_name<kAcceptLanguage>(p, available)) return known(kAcceptLanguage);
      if (starts_with_name<kAcceptEncoding>(p, available)) return known(kAcceptEncoding);
      break;
    case 'c':
      if (starts_with_name<kConnection>(p, available)) return known(kConnection);
      if (starts_with_name<kContentLength>(p, available)) return known(kContentLength);
      if (starts_with_name<kContentType>(p, available)) return known(kContentType);
      if (starts_with_name<kCacheControl>(p, available)) return known(kCacheControl);
      if (starts_with_name<kCookie>(p, available)) return known(kCookie);
      break;
    case 't':
      if (starts_with_name<kTransferEncoding>(p, available)) return known(kTransferEncoding);
      break;
    case 'e':
      if (starts_with_name<kExpect>(p, available)) return known(kExpect);
      break;
    default: break;
  }
  return {};
}

}  // namespace ringside::http
