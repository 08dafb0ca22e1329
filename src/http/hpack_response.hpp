// A response's HTTP/2 header block (HPACK, RFC 7541), as a server writes it per stream: :status
// (one byte for the static table's seven codes), then each field a literal "without indexing",
// its name from the static table where it is there. No dynamic table, so no block depends on
// another and the peer's SETTINGS_HEADER_TABLE_SIZE never matters; no Huffman coding, which would
// save bytes on the wire and cost CPU per response. Pure: into caller memory, nothing allocated.
//
//   char block[512];
//   std::size_t n = encode_response_headers(200, fields, block);   // 0: it did not fit
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "http/hpack_request.hpp"

namespace ringside::http {

// Field names must be lowercase already (RFC 9113 section 8.2.1).
[[nodiscard]] std::size_t encode_response_headers(std::uint16_t status,
                                                  std::span<const H2HeaderField> fields,
                                                  std::span<char> out);

}  // namespace ringside::http
