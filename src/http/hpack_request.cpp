#include "http/hpack_request.hpp"

#include <array>
#include <cstdint>

namespace ringside::http {
namespace {

// Static table entries (RFC 7541 appendix A) the encoder uses.
constexpr std::uint32_t kAuthorityName = 1;
constexpr std::uint32_t kMethodGet = 2;
constexpr std::uint32_t kMethodPost = 3;
constexpr std::uint32_t kMethodName = 2;
constexpr std::uint32_t kPathRoot = 4;
constexpr std::uint32_t kPathName = 4;
constexpr std::uint32_t kSchemeHttp = 6;
constexpr std::uint32_t kSchemeHttps = 7;

// Appends into a span, remembering whether everything fitted.
class Writer {
 public:
  explicit Writer(std::span<char> out) : out_(out) {}

  // An integer with an N-bit prefix (section 5.1), the first byte's high bits from `first`.
  void integer(std::uint32_t value, unsigned prefix_bits, std::uint8_t first) {
    const std::uint32_t limit = (1U << prefix_bits) - 1;
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
  // A string literal, not Huffman-coded (section 5.2), lower-cased when asked.
  void string(std::string_view text, bool lower = false) {
    integer(static_cast<std::uint32_t>(text.size()), 7, 0x00);
    for (char c : text) byte(static_cast<std::uint8_t>(lower && c >= 'A' && c <= 'Z' ? c + 32 : c));
  }
  void indexed(std::uint32_t index) { integer(index, 7, 0x80); }  // section 6.1
  // Literal header field without indexing (section 6.2.2), its name from the static table.
  void literal(std::uint32_t name_index, std::string_view value) {
    integer(name_index, 4, 0x00);
    string(value);
  }
  // The same with a new name.
  void literal(std::string_view name, std::string_view value) {
    byte(0x00);
    string(name, true);
    string(value);
  }
  [[nodiscard]] std::size_t size() const { return overflow_ ? 0 : used_; }

 private:
  void byte(std::uint8_t value) {
    if (used_ == out_.size()) {
      overflow_ = true;
      return;
    }
    out_[used_++] = static_cast<char>(value);
  }

  std::span<char> out_;
  std::size_t used_ = 0;
  bool overflow_ = false;
};

bool equals_lower(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i] >= 'A' && name[i] <= 'Z' ? static_cast<char>(name[i] + 32) : name[i];
    if (c != lower[i]) return false;
  }
  return true;
}

// Host (carried by :authority) and the fields HTTP/2 forbids.
bool left_out(std::string_view name) {
  constexpr std::array<std::string_view, 6> kNames{"host", "connection", "keep-alive",
                                                   "proxy-connection", "transfer-encoding",
                                                   "upgrade"};
  for (std::string_view dropped : kNames) {
    if (equals_lower(name, dropped)) return true;
  }
  return false;
}

}  // namespace

std::size_t encode_request_headers(const H2RequestLine& line, std::span<const H2HeaderField> fields,
                                   std::span<char> out) {
  Writer writer(out);
  if (line.method == "GET") writer.indexed(kMethodGet);
  else if (line.method == "POST") writer.indexed(kMethodPost);
  else writer.literal(kMethodName, line.method);
  writer.indexed(line.scheme == "https" ? kSchemeHttps : kSchemeHttp);
  writer.literal(kAuthorityName, line.authority);
  if (line.path == "/") writer.indexed(kPathRoot);
  else writer.literal(kPathName, line.path);
  for (const H2HeaderField& field : fields) {
    if (!left_out(field.name)) writer.literal(field.name, field.value);
  }
  return writer.size();
}

}  // namespace ringside::http
