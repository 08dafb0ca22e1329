#include "http/hpack_decoder.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "http/hpack_huffman.hpp"

namespace ringside::http {
namespace {

constexpr std::uint32_t kEntryOverhead = 32;  // RFC 7541 section 4.1

// RFC 7541 Appendix A, index 1 first.
constexpr std::array<H2HeaderField, 61> kStaticTable = {{
    {":authority", ""},
    {":method", "GET"},
    {":method", "POST"},
    {":path", "/"},
    {":path", "/index.html"},
    {":scheme", "http"},
    {":scheme", "https"},
    {":status", "200"},
    {":status", "204"},
    {":status", "206"},
    {":status", "304"},
    {":status", "400"},
    {":status", "404"},
    {":status", "500"},
    {"accept-charset", ""},
    {"accept-encoding", "gzip, deflate"},
    {"accept-language", ""},
    {"accept-ranges", ""},
    {"accept", ""},
    {"access-control-allow-origin", ""},
    {"age", ""},
    {"allow", ""},
    {"authorization", ""},
    {"cache-control", ""},
    {"content-disposition", ""},
    {"content-encoding", ""},
    {"content-language", ""},
    {"content-length", ""},
    {"content-location", ""},
    {"content-range", ""},
    {"content-type", ""},
    {"cookie", ""},
    {"date", ""},
    {"etag", ""},
    {"expect", ""},
    {"expires", ""},
    {"from", ""},
    {"host", ""},
    {"if-match", ""},
    {"if-modified-since", ""},
    {"if-none-match", ""},
    {"if-range", ""},
    {"if-unmodified-since", ""},
    {"last-modified", ""},
    {"link", ""},
    {"location", ""},
    {"max-forwards", ""},
    {"proxy-authenticate", ""},
    {"proxy-authorization", ""},
    {"range", ""},
    {"referer", ""},
    {"refresh", ""},
    {"retry-after", ""},
    {"server", ""},
    {"set-cookie", ""},
    {"strict-transport-security", ""},
    {"transfer-encoding", ""},
    {"user-agent", ""},
    {"vary", ""},
    {"via", ""},
    {"www-authenticate", ""},
}};

// Reads the block: integers (section 5.1) and string literals (5.2), bounds checked.
class Reader {
 public:
  explicit Reader(std::span<const char> block)
      : bytes_(reinterpret_cast<const std::uint8_t*>(block.data())), size_(block.size()) {}

  [[nodiscard]] bool done() const { return next_ == size_; }
  [[nodiscard]] std::uint8_t peek() const { return bytes_[next_]; }

  // An integer with an N-bit prefix (the first byte's other bits are the representation's).
  HpackError integer(unsigned prefix_bits, std::uint32_t& value) {
    if (next_ == size_) return HpackError::kTruncated;
    const std::uint32_t mask = (1u << prefix_bits) - 1;
    std::uint64_t result = bytes_[next_++] & mask;
    if (result < mask) {
      value = static_cast<std::uint32_t>(result);
      return HpackError::kNone;
    }
    for (unsigned shift = 0;; shift += 7) {
      if (next_ == size_) return HpackError::kTruncated;
      // Five continuation bytes carry 35 bits: enough for any 32-bit value, and no more read.
      if (shift > 28) return HpackError::kIntegerOverflow;
      const std::uint8_t byte = bytes_[next_++];
      result += std::uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) break;
    }
    if (result > UINT32_MAX) return HpackError::kIntegerOverflow;
    value = static_cast<std::uint32_t>(result);
    return HpackError::kNone;
  }

  // A string literal: a view into the block, or its Huffman decoding in `scratch` (from `used`,
  // which moves past it).
  HpackError string(std::span<char> scratch, std::size_t& used, std::string_view& out) {
    if (next_ == size_) return HpackError::kTruncated;
    const bool huffman = (bytes_[next_] & 0x80) != 0;
    std::uint32_t length = 0;
    if (HpackError e = integer(7, length); e != HpackError::kNone) return e;
    if (length > size_ - next_) return HpackError::kTruncated;
    const std::uint8_t* start = bytes_ + next_;
    next_ += length;
    if (!huffman) {
      out = {reinterpret_cast<const char*>(start), length};
      return HpackError::kNone;
    }
    const HuffmanResult decoded = huffman_decode({start, length}, scratch.subspan(used));
    if (decoded.error == HuffmanError::kTooLong) return HpackError::kStringTooLong;
    if (decoded.error != HuffmanError::kNone) return HpackError::kBadHuffman;
    out = {scratch.data() + used, decoded.size};
    used += decoded.size;
    return HpackError::kNone;
  }

 private:
  const std::uint8_t* bytes_;
  std::size_t size_;
  std::size_t next_ = 0;
};

}  // namespace

std::string_view hpack_error_name(HpackError error) {
  switch (error) {
    case HpackError::kNone:
      return "none";
    case HpackError::kTruncated:
      return "truncated";
    case HpackError::kIntegerOverflow:
      return "integer overflow";
    case HpackError::kBadIndex:
      return "bad index";
    case HpackError::kBadHuffman:
      return "bad Huffman string";
    case HpackError::kStringTooLong:
      return "string too long";
    case HpackError::kTableSizeOverLimit:
      return "table size over the limit";
    case HpackError::kTableSizeUpdateLate:
      return "table size update after a field";
    case HpackError::kTableSizeUpdateMissing:
      return "table size update missing";
  }
  return "unknown";
}

HpackDecoder::HpackDecoder(std::uint32_t table_limit)
    : limit_(table_limit),
      max_size_(std::min(table_limit, kInitialTableSize)),
      size_update_due_(table_limit < kInitialTableSize) {}

HpackDecoder::~HpackDecoder() = default;

bool HpackDecoder::lookup(std::uint32_t index, H2HeaderField& field) const {
  if (index == 0) return false;
  if (index <= kStaticTable.size()) {
    field = kStaticTable[index - 1];
    return true;
  }
  const std::uint32_t dynamic = index - static_cast<std::uint32_t>(kStaticTable.size());
  if (dynamic > count_) return false;
  const Entry& entry = entries_[(oldest_ + count_ - dynamic) % capacity_];
  const char* at = storage_.get() + entry.offset;
  field = {{at, entry.name_length}, {at + entry.name_length, entry.value_length}};
  return true;
}

void HpackDecoder::evict_oldest() {
  const Entry& entry = entries_[oldest_];
  table_size_ -= entry.name_length + entry.value_length + kEntryOverhead;
  oldest_ = (oldest_ + 1) % capacity_;
  if (--count_ == 0) {
    storage_begin_ = storage_end_ = 0;
  } else {
    storage_begin_ = entries_[oldest_].offset;
  }
}

void HpackDecoder::fit(std::uint32_t size) {
  while (count_ > 0 && table_size_ + size > max_size_) evict_oldest();
}

void HpackDecoder::resize(std::uint32_t max_size) {
  max_size_ = max_size;
  fit(0);
}

// `name` and `value` must not point into storage_ (the caller copies a table name to scratch).
void HpackDecoder::insert(std::string_view name, std::string_view value) {
  const std::uint64_t size = std::uint64_t{name.size()} + value.size() + kEntryOverhead;
  if (size > max_size_) {  // section 4.4: the table is emptied, and the entry not added
    while (count_ > 0) evict_oldest();
    return;
  }
  fit(static_cast<std::uint32_t>(size));
  if (!storage_) {
    storage_ = std::make_unique<char[]>(2 * std::size_t{limit_});
    capacity_ = limit_ / kEntryOverhead + 1;
    entries_ = std::make_unique<Entry[]>(capacity_);
  }
  const auto bytes = static_cast<std::uint32_t>(name.size() + value.size());
  if (std::uint64_t{storage_end_} + bytes > 2 * std::uint64_t{limit_}) {
    // The live entries (at most limit_ octets) go to the front: room for the new one behind.
    const std::uint32_t live = storage_end_ - storage_begin_;
    std::memmove(storage_.get(), storage_.get() + storage_begin_, live);
    for (std::uint32_t i = 0; i < count_; ++i) {
      entries_[(oldest_ + i) % capacity_].offset -= storage_begin_;
    }
    storage_begin_ = 0;
    storage_end_ = live;
  }
  char* at = storage_.get() + storage_end_;
  std::memcpy(at, name.data(), name.size());
  std::memcpy(at + name.size(), value.data(), value.size());
  entries_[(oldest_ + count_) % capacity_] = {storage_end_, static_cast<std::uint32_t>(name.size()),
                                              static_cast<std::uint32_t>(value.size())};
  ++count_;
  storage_end_ += bytes;
  table_size_ += static_cast<std::uint32_t>(size);
}

HpackError HpackDecoder::decode(std::span<const char> block, std::span<char> scratch,
                                FieldSink sink, void* context) {
  Reader reader(block);
  bool field_seen = false;
  while (!reader.done()) {
    const std::uint8_t first = reader.peek();
    if (size_update_due_ && (first & 0xe0) != 0x20) return HpackError::kTableSizeUpdateMissing;
    std::uint32_t index = 0;
    HpackError error = HpackError::kNone;
    if (first & 0x80) {  // indexed field (section 6.1)
      if ((error = reader.integer(7, index)) != HpackError::kNone) return error;
      H2HeaderField field;
      if (!lookup(index, field)) return HpackError::kBadIndex;
      sink(context, field.name, field.value);
      field_seen = true;
      continue;
    }
    if ((first & 0xe0) == 0x20) {  // dynamic table size update (section 6.3)
      if (field_seen) return HpackError::kTableSizeUpdateLate;
      if ((error = reader.integer(5, index)) != HpackError::kNone) return error;
      if (index > limit_) return HpackError::kTableSizeOverLimit;
      size_update_due_ = false;
      resize(index);
      continue;
    }
    // A literal (section 6.2): with incremental indexing (01), without (0000) or never (0001).
    const bool indexing = (first & 0xc0) == 0x40;
    if ((error = reader.integer(indexing ? 6 : 4, index)) != HpackError::kNone) return error;
    std::size_t used = 0;
    H2HeaderField field;
    if (index == 0) {
      if ((error = reader.string(scratch, used, field.name)) != HpackError::kNone) return error;
    } else if (!lookup(index, field)) {
      return HpackError::kBadIndex;
    }
    if ((error = reader.string(scratch, used, field.value)) != HpackError::kNone) return error;
    field_seen = true;
    if (!indexing) {
      sink(context, field.name, field.value);
      continue;
    }
    if (index > kStaticTable.size()) {
      // A name from the dynamic table may be evicted (or moved) by its own insertion.
      if (field.name.size() > scratch.size() - used) return HpackError::kStringTooLong;
      std::memcpy(scratch.data() + used, field.name.data(), field.name.size());
      field.name = {scratch.data() + used, field.name.size()};
    }
    insert(field.name, field.value);
    sink(context, field.name, field.value);
  }
  // An empty block is the first block too: it did not apply the limit either.
  return size_update_due_ ? HpackError::kTableSizeUpdateMissing : HpackError::kNone;
}

}  // namespace ringside::http
