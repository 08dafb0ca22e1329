#include "core/fnv1a.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace ringside::core {
namespace {

// The 64-bit FNV-1a test vectors of the IETF draft "The FNV Non-Cryptographic Hash Algorithm"
// (draft-eastlake-fnv): the empty input gives the offset basis itself.
static_assert(fnv1a64("") == 0xcbf29ce484222325ULL);
static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
static_assert(fnv1a64("foobar") == 0x85944171f73967e8ULL);

TEST(Fnv1a64, MatchesTheSpecificationsTestVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Fnv1a64, TheParametersAreTheSpecifications) {
  EXPECT_EQ(kFnv1a64Offset, 14695981039346656037ULL);
  EXPECT_EQ(kFnv1a64Prime, (1ULL << 40) + (1ULL << 8) + 0xb3);
}

TEST(Fnv1a64, HashingInPiecesEqualsHashingTheWhole) {
  const std::string_view whole = "foobar";
  for (std::size_t cut = 0; cut <= whole.size(); ++cut) {
    EXPECT_EQ(fnv1a64(whole.substr(cut), fnv1a64(whole.substr(0, cut))), fnv1a64(whole)) << cut;
  }
}

TEST(Fnv1a64, BytesAboveSevenBitsAreHashedAsUnsigned) {
  // 0xff as a (signed) char must not sign-extend into the high bits before the xor.
  const std::string high(1, '\xff');
  EXPECT_EQ(fnv1a64(high), (kFnv1a64Offset ^ 0xffULL) * kFnv1a64Prime);
  EXPECT_NE(fnv1a64(high), fnv1a64(std::string(1, '\x7f')));
}

TEST(Fnv1a64, ZeroBytesCount) {
  EXPECT_NE(fnv1a64(std::string_view("\0", 1)), fnv1a64(""));
  EXPECT_NE(fnv1a64(std::string_view("a\0", 2)), fnv1a64("a"));
}

}  // namespace
}  // namespace ringside::core
