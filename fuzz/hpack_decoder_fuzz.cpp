// Fuzzes HPACK block decoding (http/hpack_decoder.hpp) against libnghttp2's inflater as the
// reference. The input: two bytes of table limit (the SETTINGS_HEADER_TABLE_SIZE both decoders
// advertise, up to 8191), then blocks, each a one-byte length and its bytes (the last one takes
// what is left).
//
// Invariants, checked with __builtin_trap so any compiler and sanitizer stops on them:
//  - a block our decoder accepts, nghttp2's accepts too, with the same fields in the same order,
//    and the other way round; after one both refuse, no further block is decoded (the connection
//    would be gone);
//  - the dynamic table's size is the same in both after every block, and never over the limit.
#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "http/hpack_decoder.hpp"

namespace {

using namespace ringside::http;

#define REQUIRE(condition)              \
  do {                                  \
    if (!(condition)) __builtin_trap(); \
  } while (0)

// nghttp2's fields of one whole block, or false when it refuses the block.
bool reference(nghttp2_hd_inflater* inflater, const std::uint8_t* in, std::size_t size,
               std::string& fields) {
  while (true) {
    nghttp2_nv nv;
    int flags = 0;
    const ssize_t used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, in, size, 1);
    if (used < 0) return false;
    in += used;
    size -= static_cast<std::size_t>(used);
    if (flags & NGHTTP2_HD_INFLATE_EMIT) {
      fields.append(reinterpret_cast<const char*>(nv.name), nv.namelen).push_back('\0');
      fields.append(reinterpret_cast<const char*>(nv.value), nv.valuelen).push_back('\n');
    }
    if (flags & NGHTTP2_HD_INFLATE_FINAL) break;
    if (used == 0 && size == 0) return false;  // it wanted more than the whole block
  }
  nghttp2_hd_inflate_end_headers(inflater);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint32_t limit = (std::uint32_t{data[0]} << 8 | data[1]) & 0x1fff;
  data += 2;
  size -= 2;
  nghttp2_hd_inflater* inflater = nullptr;
  if (nghttp2_hd_inflate_new(&inflater) != 0) return 0;
  REQUIRE(nghttp2_hd_inflate_change_table_size(inflater, limit) == 0);
  HpackDecoder decoder(limit);
  static std::vector<char> scratch(HpackDecoder::kScratchBytes);
  while (size > 0) {
    std::size_t length = data[0];
    ++data;
    --size;
    if (length > size || size - length < 2) length = size;
    std::string ours;
    const HpackError error = decoder.decode({reinterpret_cast<const char*>(data), length}, scratch,
                                            [&](std::string_view name, std::string_view value) {
                                              ours.append(name).push_back('\0');
                                              ours.append(value).push_back('\n');
                                            });
    std::string theirs;
    const bool accepted = reference(inflater, data, length, theirs);
    REQUIRE(accepted == (error == HpackError::kNone));
    if (!accepted) break;
    REQUIRE(ours == theirs);
    REQUIRE(decoder.table_size() == nghttp2_hd_inflate_get_dynamic_table_size(inflater));
    REQUIRE(decoder.table_size() <= limit);
    data += length;
    size -= length;
  }
  nghttp2_hd_inflate_del(inflater);
  return 0;
}
