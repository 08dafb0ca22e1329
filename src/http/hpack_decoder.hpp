// HPACK header block decoding (RFC 7541): a whole header block in (a HEADERS frame's fragment and
// its CONTINUATIONs', joined), each field out as a name and a value, the dynamic table kept
// between blocks as the encoder's is. Ours, not libnghttp2's inflater: no allocation per block,
// fields handed over as views (into the block itself, the dynamic table, or the caller's scratch
// for Huffman strings), so a request's fields can be copied once, straight to where they go.
//
//   HpackDecoder decoder(4096);                    // the SETTINGS_HEADER_TABLE_SIZE we advertise
//   char scratch[HpackDecoder::kScratchBytes];
//   HpackError e = decoder.decode(block, scratch, [&](std::string_view name, std::string_view
//   value) {
//     ...                                          // views valid until the callback returns
//   });
//
// Errors are the block's (RFC 9113 section 4.3: a COMPRESSION_ERROR for the connection): after
// one the table may hold a part of the block, so the connection must not decode another.
// The table's memory (twice its limit, and its entry list) is taken at its first insertion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>

#include "http/hpack_request.hpp"

namespace ringside::http {

enum class HpackError : std::uint8_t {
  kNone,
  kTruncated,              // the block ends inside a representation
  kIntegerOverflow,        // an integer past 2^32 - 1
  kBadIndex,               // index 0, or past the static and dynamic tables
  kBadHuffman,             // bad padding, or EOS in a string
  kStringTooLong,          // a Huffman string longer than the scratch (a field the caller refuses)
  kTableSizeOverLimit,     // a dynamic table size update over the limit we advertised
  kTableSizeUpdateLate,    // a size update after a field (section 4.2: at the block's start only)
  kTableSizeUpdateMissing  // a limit under 4096 advertised, and the first block did not apply it
};

[[nodiscard]] std::string_view hpack_error_name(HpackError error);

class HpackDecoder {
 public:
  using FieldSink = void (*)(void* context, std::string_view name, std::string_view value);
  // Scratch enough for a name and a value of 64 KiB each, Huffman-decoded (the most libnghttp2
  // takes in one field, and more than a server's header list limit lets through).
  static constexpr std::size_t kScratchBytes = 128 * 1024;

  // The table's size when a connection starts (SETTINGS_HEADER_TABLE_SIZE's default).
  static constexpr std::uint32_t kInitialTableSize = 4096;

  // `table_limit`: SETTINGS_HEADER_TABLE_SIZE as this side advertised it: the most the encoder may
  // make the table. The table starts at 4096 or the limit if smaller; a limit under 4096 must be
  // applied by a size update at the start of the first block (section 4.2), as nghttp2 requires.
  explicit HpackDecoder(std::uint32_t table_limit = kInitialTableSize);
  ~HpackDecoder();
  HpackDecoder(const HpackDecoder&) = delete;
  HpackDecoder& operator=(const HpackDecoder&) = delete;

  // Decodes one whole header block; `scratch` holds Huffman-decoded strings while their field is
  // handed over.
  [[nodiscard]] HpackError decode(std::span<const char> block, std::span<char> scratch,
                                  FieldSink sink, void* context);

  template <class OnField>
  [[nodiscard]] HpackError decode(std::span<const char> block, std::span<char> scratch,
                                  OnField&& on_field) {
    using Callable = std::remove_reference_t<OnField>;
    return decode(
        block, scratch,
        [](void* context, std::string_view name, std::string_view value) {
          (*static_cast<Callable*>(context))(name, value);
        },
        static_cast<void*>(&on_field));
  }

  // The dynamic table as section 4.1 counts it (each entry's name, value and 32 octets).
  [[nodiscard]] std::uint32_t table_size() const { return table_size_; }
  [[nodiscard]] std::uint32_t table_max_size() const { return max_size_; }
  [[nodiscard]] std::uint32_t table_entries() const { return count_; }

 private:
  struct Entry {
    std::uint32_t offset;  // in storage_
    std::uint32_t name_length;
    std::uint32_t value_length;
  };

  // Index 1..61 the static table, 62.. the dynamic table, newest first. False past both.
  bool lookup(std::uint32_t index, H2HeaderField& field) const;
  void insert(std::string_view name, std::string_view value);
  void evict_oldest();
  void fit(std::uint32_t size);  // evicts until `size` more octets fit the table
  void resize(std::uint32_t max_size);

  std::uint32_t limit_;
  std::uint32_t max_size_;           // the table's size now (<= limit_), as the encoder set it
  std::uint32_t table_size_ = 0;     // entries' octets + 32 each
  bool size_update_due_;             // the limit is under 4096: the first block must start with one
  std::unique_ptr<char[]> storage_;  // entries' names and values, oldest first, contiguous
  std::uint32_t storage_begin_ = 0;  // where the oldest entry starts
  std::uint32_t storage_end_ = 0;    // past the newest
  std::unique_ptr<Entry[]> entries_;  // a ring, oldest at `oldest_`
  std::uint32_t capacity_ = 0;        // of the ring
  std::uint32_t oldest_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace ringside::http
