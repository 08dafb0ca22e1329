// A request's HTTP/2 header block (HPACK, RFC 7541), encoded once for a load run and sent as it
// is on every stream: only the HEADERS frame's stream id changes (h2_frame.hpp). So the block
// uses nothing that depends on earlier blocks — no dynamic table, every field either one of the
// static table's entries or a literal "without indexing" — and no Huffman coding, which would
// save bytes on the wire but not one CPU cycle of the server's decoding.
//
// The pseudo-header fields come first (RFC 9113 section 8.3.1): :method, :scheme, :authority,
// :path. Field names are lower-cased (section 8.2.1); Host is carried by :authority, and the
// connection-specific fields (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding,
// Upgrade) are left out, as section 8.2.2 requires.
//
//   char block[4096];
//   std::size_t n = encode_request_headers({"GET", "http", "127.0.0.1:8080", "/"}, {}, block);
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace ringside::http {

struct H2RequestLine {
  std::string_view method;
  std::string_view scheme;     // "http" or "https"
  std::string_view authority;  // host[:port]
  std::string_view path;       // origin-form: "/users/1?x=y"
};

struct H2HeaderField {
  std::string_view name;
  std::string_view value;
};

// The block's bytes in `out`; 0 when it does not fit.
[[nodiscard]] std::size_t encode_request_headers(const H2RequestLine& line,
                                                 std::span<const H2HeaderField> fields,
                                                 std::span<char> out);

}  // namespace ringside::http
