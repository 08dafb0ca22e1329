#include "http/hpack_response.hpp"

#include <array>
#include <string_view>

namespace ringside::http {
namespace {

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

std::uint8_t static_index(std::string_view name) {
  for (const StaticName& entry : kResponseNames) {
    if (entry.name.size() == name.size() && entry.name == name) return entry.index;
  }
  return 0;
}

// The static table's :status entries (indices 8 to 14).
std::uint8_t status_index(std::uint16_t status) {
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

class BlockWriter {
 public:
  explicit BlockWriter(std::span<char> out) : out_(out) {}

  // An integer with an N-bit prefix (section 5.1) under `first`'s high bits.
  void integer(std::size_t value, unsigned prefix_bits, std::uint8_t first) {
    const std::size_t limit = (std::size_t{1} << prefix_bits) - 1;
    if (value < limit) {
      byte(static_cast<std::uint8_t>(first | value));
      return;
    }
    byte(static_cast<std::uint8_t>(first | limit));
    value -= limit;
    while (value >= 128) {
      byte(static_cast<std::uint8_t>(value % 128 + 128));
      value /= 128;
    }
    byte(static_cast<std::uint8_t>(value));
  }
  void string(std::string_view text) {
    integer(text.size(), 7, 0x00);
    if (text.size() > out_.size() - used_) {
      overflow_ = true;
      used_ = out_.size();
      return;
    }
    for (std::size_t i = 0; i < text.size(); ++i) out_[used_ + i] = text[i];
    used_ += text.size();
  }
  void byte(std::uint8_t value) {
    if (used_ == out_.size()) {
      overflow_ = true;
      return;
    }
    out_[used_++] = static_cast<char>(value);
  }
  [[nodiscard]] std::size_t size() const { return overflow_ ? 0 : used_; }

 private:
  std::span<char> out_;
  std::size_t used_ = 0;
  bool overflow_ = false;
};

}  // namespace

std::size_t encode_response_headers(std::uint16_t status, std::span<const H2HeaderField> fields,
                                    std::span<char> out) {
  BlockWriter writer(out);
  if (const std::uint8_t index = status_index(status); index != 0) {
    writer.integer(index, 7, 0x80);  // indexed field (section 6.1)
  } else {
    const char digits[3] = {static_cast<char>('0' + status / 100 % 10),
                            static_cast<char>('0' + status / 10 % 10),
                            static_cast<char>('0' + status % 10)};
    writer.integer(8, 4, 0x00);  // literal without indexing, name :status (section 6.2.2)
    writer.string({digits, 3});
  }
  for (const H2HeaderField& field : fields) {
    if (const std::uint8_t index = static_index(field.name); index != 0) {
      writer.integer(index, 4, 0x00);
    } else {
      writer.byte(0x00);
      writer.string(field.name);
    }
    writer.string(field.value);
  }
  return writer.size();
}

}  // namespace ringside::http
