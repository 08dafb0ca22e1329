// What the HPACK tests share: libnghttp2's inflater as the reference decoder of one header block.
#pragma once

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringside::http::testing {

using Fields = std::vector<std::pair<std::string, std::string>>;

// The fields of `block`, decoded by `inflater` (which remembers the blocks it decoded before);
// a block nghttp2 refuses fails the test and comes back as the single field {"refused", ""}.
inline Fields inflate_block(nghttp2_hd_inflater* inflater, std::string_view block) {
  Fields fields;
  const auto* in = reinterpret_cast<const uint8_t*>(block.data());
  std::size_t left = block.size();
  while (true) {
    nghttp2_nv nv;
    int flags = 0;
    const ssize_t used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, in, left, 1);
    EXPECT_GE(used, 0) << "nghttp2 refused the block";
    if (used < 0) return {{"refused", ""}};
    in += used;
    left -= static_cast<std::size_t>(used);
    if (flags & NGHTTP2_HD_INFLATE_EMIT) {
      fields.emplace_back(std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                          std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen));
    }
    if ((flags & NGHTTP2_HD_INFLATE_FINAL) || (used == 0 && left == 0)) break;
  }
  nghttp2_hd_inflate_end_headers(inflater);
  return fields;
}

}  // namespace ringside::http::testing
