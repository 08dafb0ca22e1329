// FNV-1a over 64 bits (Fowler, Noll, Vo; the parameters of the IETF draft "The FNV
// Non-Cryptographic Hash Algorithm", draft-eastlake-fnv): a fast fingerprint that notices edits
// and names things (a build's inputs, a binary), not a checksum against an adversary.
//
//   std::uint64_t hash = core::fnv1a64("whole input");
//   std::uint64_t running = core::kFnv1a64Offset;        // or in pieces, as they are read:
//   running = core::fnv1a64(piece, running);              // fnv1a64(b, fnv1a64(a)) == fnv1a64(a + b)
#pragma once

#include <cstdint>
#include <string_view>

namespace ringside::core {

inline constexpr std::uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;  // the offset basis
inline constexpr std::uint64_t kFnv1a64Prime = 0x100000001b3ULL;        // 2^40 + 2^8 + 0xb3

// The hash of `bytes`, continuing from `hash` (the offset basis starts a new one).
constexpr std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t hash = kFnv1a64Offset) {
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * kFnv1a64Prime;
  return hash;
}

}  // namespace ringside::core
