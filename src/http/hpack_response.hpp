// A response's HTTP/2 header block (HPACK, RFC 7541), as a server writes it per stream. :status
// and the fields that repeat from answer to answer (content-type, content-length, date, ...) go
// into a small dynamic table of the connection's, so a repeated field costs one byte: the first
// block opens with a size update to kTableSize (or less, as the client's SETTINGS_HEADER_TABLE_SIZE
// allows), and every block after a change of that setting says the new size first (section 4.2).
// No Huffman coding: it would save bytes on the wire and cost CPU per answer. Pure bytes in caller
// memory; the table lives in the encoder (about 1 KiB), nothing is allocated.
//
//   HpackResponseEncoder encoder;                    // one per connection
//   encoder.set_peer_limit(4096);                    // the client's SETTINGS_HEADER_TABLE_SIZE
//   std::size_t n = encoder.encode(200, fields, out);   // 0: it did not fit (table unchanged)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "http/hpack_request.hpp"

namespace ringside::http {

class HpackResponseEncoder {
 public:
  // The most of the client's dynamic table the encoder uses (section 4.1's octets).
  static constexpr std::uint32_t kTableSize = 512;

  // The client's SETTINGS_HEADER_TABLE_SIZE (4096 until it says otherwise).
  void set_peer_limit(std::uint32_t limit);

  // Field names must be lowercase (RFC 9113 section 8.2.1). Returns the block's size, or 0 when
  // it may not fit `out` (nothing is then written nor remembered).
  [[nodiscard]] std::size_t encode(std::uint16_t status, std::span<const H2HeaderField> fields,
                                   std::span<char> out);

  [[nodiscard]] std::uint32_t table_size() const { return size_; }
  [[nodiscard]] std::uint32_t table_entries() const { return count_; }

 private:
  struct Entry {
    std::uint16_t offset;  // in bytes_
    std::uint16_t name_length;
    std::uint16_t value_length;
  };
  static constexpr std::uint32_t kMaxEntries = kTableSize / 32;

  void field(std::string_view name, std::string_view value, std::uint8_t name_index, char*& at);
  [[nodiscard]] std::uint32_t find(std::string_view name, std::string_view value) const;
  void insert(std::string_view name, std::string_view value);
  void evict_to(std::uint32_t max_size);
  void size_update(std::uint32_t max_size, char*& at);

  std::uint32_t peer_limit_ = 4096;
  std::uint32_t lowest_limit_ = 4096;         // the lowest since the last block (section 4.2)
  std::uint32_t max_size_ = 4096;             // the table's size as the client's decoder has it
  bool limit_changed_ = true;                 // a size update opens the next block
  std::uint32_t size_ = 0;                    // entries' octets + 32 each
  std::array<Entry, kMaxEntries> entries_{};  // oldest first
  std::uint32_t count_ = 0;
  std::array<char, 2 * kTableSize> bytes_{};  // entries' names and values, oldest first
  std::uint32_t bytes_end_ = 0;
};

}  // namespace ringside::http
