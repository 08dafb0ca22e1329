#include "http/hpack_response.hpp"

#include <algorithm>
#include <cstring>

namespace ringside::http {
namespace {

constexpr std::uint32_t kStaticEntries = 61;
constexpr std::uint32_t kEntryOverhead = 32;  // section 4.1
// A field is put in the table when it takes at most this share of it.
constexpr std::uint32_t kMaxIndexedEntry = HpackResponseEncoder::kTableSize / 4;

struct StaticName {
  std::string_view name;
  std::uint8_t index;  // RFC 7541 appendix A
};

// Names a response carries, with their static table index.
constexpr std::array<StaticName, 16> kResponseNames{{
    {"content-type", 31},
    {"content-length", 28},
    {"date", 33},
    {"allow", 22},
    {"location", 46},
    {"cache-control", 24},
    {"server", 54},
    {"etag", 34},
    {"last-modified", 44},
    {"vary", 59},
    {"set-cookie", 55},
    {"retry-after", 53},
    {"expires", 36},
    {"content-encoding", 26},
    {"www-authenticate", 61},
    {"access-control-allow-origin", 20},
}};

std::uint8_t static_name_index(std::string_view name) {
  for (const StaticName& entry : kResponseNames) {
    if (entry.name.size() == name.size() && entry.name == name) return entry.index;
  }
  return 0;
}

// The static table's :status entries (indices 8 to 14).
std::uint8_t static_status_index(std::uint16_t status) {
  switch (status) {
    case 200:
      return 8;
    case 204:
      return 9;
    case 206:
      return 10;
    case 304:
      return 11;
    case 400:
      return 12;
    case 404:
      return 13;
    case 500:
      return 14;
    default:
      return 0;
  }
}

// An integer with an N-bit prefix (section 5.1) under `first`'s high bits.
void write_integer(std::size_t value, unsigned prefix_bits, std::uint8_t first, char*& at) {
  const std::size_t limit = (std::size_t{1} << prefix_bits) - 1;
  if (value < limit) {
    *at++ = static_cast<char>(first | value);
    return;
  }
  *at++ = static_cast<char>(first | limit);
  value -= limit;
  while (value >= 128) {
    *at++ = static_cast<char>(value % 128 + 128);
    value /= 128;
  }
  *at++ = static_cast<char>(value);
}

void write_string(std::string_view text, char*& at) {
  write_integer(text.size(), 7, 0x00, at);
  std::memcpy(at, text.data(), text.size());
  at += text.size();
}

// The most a field's representation takes: a prefix byte and integer for the name index, two
// lengths of up to 5 bytes each (values under 2^28), the name and the value.
std::size_t bound(std::string_view name, std::string_view value) {
  return 1 + 5 + 5 + 5 + name.size() + value.size();
}

}  // namespace

void HpackResponseEncoder::set_peer_limit(std::uint32_t limit) {
  peer_limit_ = limit;
  lowest_limit_ = std::min(lowest_limit_, limit);
  limit_changed_ = true;
}

std::size_t HpackResponseEncoder::encode(std::uint16_t status,
                                         std::span<const H2HeaderField> fields,
                                         std::span<char> out) {
  std::size_t need = 2 * 6 + bound(":status", "000");
  for (const H2HeaderField& one : fields) need += bound(one.name, one.value);
  if (need > out.size()) return 0;
  char* at = out.data();
  if (limit_changed_) {
    // Section 4.2: the lowest limit since the last block first, if the table had to shrink to it,
    // then the size the encoder now uses.
    const std::uint32_t target = std::min(kTableSize, peer_limit_);
    if (lowest_limit_ < max_size_ && lowest_limit_ < target) size_update(lowest_limit_, at);
    size_update(target, at);
    lowest_limit_ = peer_limit_;
    limit_changed_ = false;
  }
  if (const std::uint8_t index = static_status_index(status); index != 0) {
    write_integer(index, 7, 0x80, at);  // indexed field (section 6.1)
  } else {
    const char digits[3] = {static_cast<char>('0' + status / 100 % 10),
                            static_cast<char>('0' + status / 10 % 10),
                            static_cast<char>('0' + status % 10)};
    field(":status", {digits, 3}, 8, at);
  }
  for (const H2HeaderField& one : fields)
    field(one.name, one.value, static_name_index(one.name), at);
  return static_cast<std::size_t>(at - out.data());
}

// One field: indexed when the table has it, else a literal, added to the table when it is small.
void HpackResponseEncoder::field(std::string_view name, std::string_view value,
                                 std::uint8_t name_index, char*& at) {
  if (const std::uint32_t index = find(name, value); index != 0) {
    write_integer(index, 7, 0x80, at);
    return;
  }
  const auto entry_size = static_cast<std::uint32_t>(name.size() + value.size()) + kEntryOverhead;
  const bool indexed = entry_size <= kMaxIndexedEntry && entry_size <= max_size_;
  // Literal with incremental indexing (section 6.2.1: 01, a 6-bit name index) or without
  // indexing (6.2.2: 0000, a 4-bit name index); name index 0: the name follows as a string.
  write_integer(name_index, indexed ? 6 : 4, indexed ? 0x40 : 0x00, at);
  if (name_index == 0) write_string(name, at);
  write_string(value, at);
  if (indexed) insert(name, value);
}

// The field's dynamic table index (62 the newest), or 0.
std::uint32_t HpackResponseEncoder::find(std::string_view name, std::string_view value) const {
  for (std::uint32_t i = count_; i-- > 0;) {
    const Entry& entry = entries_[i];
    if (entry.name_length != name.size() || entry.value_length != value.size()) continue;
    const char* bytes = bytes_.data() + entry.offset;
    if (std::memcmp(bytes, name.data(), name.size()) == 0 &&
        std::memcmp(bytes + name.size(), value.data(), value.size()) == 0) {
      return kStaticEntries + count_ - i;
    }
  }
  return 0;
}

// Section 4.4: the oldest entries leave until the new one fits.
void HpackResponseEncoder::insert(std::string_view name, std::string_view value) {
  const auto entry_size = static_cast<std::uint32_t>(name.size() + value.size()) + kEntryOverhead;
  evict_to(max_size_ - entry_size);
  const auto length = static_cast<std::uint32_t>(name.size() + value.size());
  if (bytes_end_ + length > bytes_.size()) {  // compact: the live bytes to the front
    const std::uint32_t begin = count_ > 0 ? entries_[0].offset : bytes_end_;
    std::memmove(bytes_.data(), bytes_.data() + begin, bytes_end_ - begin);
    for (std::uint32_t i = 0; i < count_; ++i) {
      entries_[i].offset = static_cast<std::uint16_t>(entries_[i].offset - begin);
    }
    bytes_end_ -= begin;
  }
  std::memcpy(bytes_.data() + bytes_end_, name.data(), name.size());
  std::memcpy(bytes_.data() + bytes_end_ + name.size(), value.data(), value.size());
  entries_[count_++] = {static_cast<std::uint16_t>(bytes_end_),
                        static_cast<std::uint16_t>(name.size()),
                        static_cast<std::uint16_t>(value.size())};
  bytes_end_ += length;
  size_ += entry_size;
}

void HpackResponseEncoder::evict_to(std::uint32_t max_size) {
  std::uint32_t gone = 0;
  while (gone < count_ && size_ > max_size) {
    size_ -= entries_[gone].name_length + entries_[gone].value_length + kEntryOverhead;
    ++gone;
  }
  if (gone == 0) return;
  std::copy(entries_.begin() + gone, entries_.begin() + count_, entries_.begin());
  count_ -= gone;
  if (count_ == 0) bytes_end_ = 0;
}

// A dynamic table size update (section 6.3: 001, a 5-bit prefix).
void HpackResponseEncoder::size_update(std::uint32_t max_size, char*& at) {
  write_integer(max_size, 5, 0x20, at);
  max_size_ = max_size;
  evict_to(max_size);
}

}  // namespace ringside::http
