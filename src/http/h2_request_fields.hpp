// The rules RFC 9113 sets on a request's fields in HTTP/2 (sections 8.2 and 8.3), checked field
// by field as a header block is decoded: pseudo-header fields first, each of :method, :scheme,
// :authority and :path at most once and no other; names lowercase tokens; no value with NUL, CR
// or LF, nor one that starts or ends with whitespace; none of the connection-specific fields, and
// TE only as "trailers"; content-length a number, given once. A request that breaks one is
// malformed (section 8.1.1): the stream is reset with PROTOCOL_ERROR. Trailers carry no
// pseudo-header field. Pure: nothing kept but what the checks need, nothing allocated.
//
//   H2RequestFields check(H2FieldBlock::kRequest);
//   for each decoded field: if (!check.accept(name, value)) ... malformed (stop handing fields on);
//   if (!check.complete()) ... malformed;   check.content_length() -> -1 or the declared length
#pragma once

#include <cstdint>
#include <string_view>

namespace ringside::http {

enum class H2FieldBlock : std::uint8_t { kRequest, kTrailers };

class H2RequestFields {
 public:
  explicit H2RequestFields(H2FieldBlock block) : block_(block) {}

  // False when this field makes the request malformed.
  [[nodiscard]] bool accept(std::string_view name, std::string_view value);
  // After the last field: false when a pseudo-header field the request needs is missing (RFC
  // 9113 section 8.3.1: :method, and :scheme and :path unless CONNECT, which needs :authority).
  [[nodiscard]] bool complete() const;

  // The content-length field's value, or -1 when the request has none.
  [[nodiscard]] std::int64_t content_length() const { return content_length_; }

 private:
  bool accept_pseudo(std::string_view name, std::string_view value);

  H2FieldBlock block_;
  bool regular_seen_ = false;     // a regular field came: no pseudo-header field may follow
  std::uint8_t pseudo_seen_ = 0;  // bits: method, scheme, authority, path
  bool connect_ = false;
  bool options_ = false;
  bool path_asterisk_ = false;
  bool path_origin_ = false;  // starts with '/'
  bool scheme_http_ = false;  // http or https: the path must be origin-form (or * for OPTIONS)
  std::int64_t content_length_ = -1;
};

}  // namespace ringside::http
