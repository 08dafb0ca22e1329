// Fuzzes the response parser the way the load generator drives it: heads and bodies back to back
// in one buffer. The first input byte picks the options ('0' plain, '1' answers to HEAD, '2' and
// '3' the same with a small head limit), so corpus files stay readable.
//
// Invariants, checked with __builtin_trap so any compiler and sanitizer stops on them:
//  - a head never claims bytes it was not given, its views point into the input, its fields are
//    in range and its framing is self-consistent (RFC 9112 section 6.3);
//  - a prefix of the input gives kPartial or the very same answer (split-at-every-byte property);
//  - a body fed whole or in two pieces ends at the same byte, and never past the input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "http/response_parser.hpp"

namespace {

using namespace ringside::http;

#define REQUIRE(condition)              \
  do {                                  \
    if (!(condition)) __builtin_trap(); \
  } while (0)

ResponseParseOptions options_from(std::uint8_t flags) {
  ResponseParseOptions options;
  options.request_was_head = (flags & 1) != 0;
  if ((flags & 2) != 0) options.max_head_bytes = 16 + (flags >> 2);
  return options;
}

bool inside(std::string_view view, std::span<const char> input) {
  if (view.empty()) return true;
  return view.data() >= input.data() && view.data() + view.size() <= input.data() + input.size();
}

void check_head(const Response& r, std::span<const char> input, std::size_t consumed,
                const ResponseParseOptions& options) {
  REQUIRE(consumed > 0 && consumed <= input.size() && consumed <= options.max_head_bytes);
  REQUIRE(r.status >= 100 && r.status <= 599);
  REQUIRE(r.version_minor <= 1);
  REQUIRE(r.header_count <= kMaxHeaders);
  REQUIRE(inside(r.reason, input.first(consumed)));
  for (const Header& h : r.header_list()) {
    REQUIRE(!h.name.empty() && inside(h.name, input.first(consumed)) &&
            inside(h.value, input.first(consumed)));
  }
  if (r.body_until_close) REQUIRE(r.framing == BodyFraming::kNone && !r.keep_alive);
  REQUIRE((r.framing == BodyFraming::kContentLength) == (r.content_length > 0));
  bool bodiless = options.request_was_head || r.status < 200 || r.status == 204 || r.status == 304;
  if (bodiless) REQUIRE(!r.has_body());
}

// Parses a copy of the first `n` bytes in an exact-size buffer, so an over-read past the prefix
// is caught by AddressSanitizer rather than landing in the rest of the input.
ResponseParseResult parse_prefix(std::span<const char> input, std::size_t n, Response& r,
                                 const ResponseParseOptions& options) {
  std::unique_ptr<char[]> copy(new char[n]);
  if (n > 0) std::memcpy(copy.get(), input.data(), n);
  return parse_response_head({copy.get(), n}, r, options);
}

void check_prefix(std::span<const char> input, std::size_t n, const ResponseParseResult& whole,
                  const Response& full, const ResponseParseOptions& options) {
  Response r;
  auto prefix = parse_prefix(input, n, r, options);
  if (whole.status == ParseStatus::kComplete && n >= whole.consumed) {
    REQUIRE(prefix.status == ParseStatus::kComplete && prefix.consumed == whole.consumed);
    REQUIRE(r.status == full.status && r.framing == full.framing &&
            r.content_length == full.content_length && r.keep_alive == full.keep_alive &&
            r.body_until_close == full.body_until_close && r.header_count == full.header_count);
    return;
  }
  if (prefix.status == ParseStatus::kPartial) return;
  REQUIRE(prefix.status == ParseStatus::kError && whole.status == ParseStatus::kError);
  REQUIRE(prefix.error == whole.error);
}

struct BodyOutcome {
  std::size_t consumed = 0;
  bool done = false;
  bool failed = false;
  std::uint64_t body_bytes = 0;
};

BodyOutcome read_body(const Response& r, std::span<const char> rest, std::size_t split) {
  ResponseBodyReader reader(r);
  BodyOutcome out;
  for (auto piece : {rest.first(split), rest.subspan(split)}) {
    auto result = reader.feed(piece);
    REQUIRE(result.consumed <= piece.size() && result.data_bytes <= result.consumed);
    out.consumed += result.consumed;
    if (result.error != ResponseError::kNone) {
      out.failed = true;
      break;
    }
    // A reader that is not done has used all it was given: nothing is left half-read.
    if (!result.done) REQUIRE(result.consumed == piece.size());
    if (result.done) {
      out.done = true;
      break;
    }
  }
  out.body_bytes = reader.body_bytes();
  REQUIRE(out.done == reader.done());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto options = options_from(data[0]);
  std::span<const char> stream(reinterpret_cast<const char*>(data) + 1, size - 1);

  // At most a few responses: each one costs prefix re-parses, and one pipelined step already
  // covers the boundary logic.
  for (int responses = 0; responses < 8 && !stream.empty(); ++responses) {
    Response r;
    auto head = parse_response_head(stream, r, options);
    Response again;
    auto repeat = parse_response_head(stream, again, options);
    REQUIRE(repeat.status == head.status && repeat.consumed == head.consumed &&
            repeat.error == head.error);

    if (head.status == ParseStatus::kComplete) {
      check_head(r, stream, head.consumed, options);
      REQUIRE(head.error == ResponseError::kNone);
      check_prefix(stream, head.consumed - 1, head, r, options);
    } else {
      REQUIRE(head.consumed == 0);
      REQUIRE((head.status == ParseStatus::kError) == (head.error != ResponseError::kNone));
    }
    check_prefix(stream, stream.size() / 2, head, r, options);
    check_prefix(stream, stream.size() - 1, head, r, options);
    if (head.status != ParseStatus::kComplete) return 0;

    stream = stream.subspan(head.consumed);
    if (r.is_interim()) continue;

    auto whole = read_body(r, stream, stream.size());
    auto split = read_body(r, stream, stream.size() / 3);
    REQUIRE(whole.consumed <= stream.size());
    REQUIRE(whole.failed == split.failed);
    if (whole.failed) return 0;
    REQUIRE(whole.done == split.done && whole.consumed == split.consumed &&
            whole.body_bytes == split.body_bytes);
    if (r.framing == BodyFraming::kContentLength) {
      REQUIRE(whole.consumed == std::min<std::uint64_t>(r.content_length, stream.size()));
    }
    if (!r.has_body()) REQUIRE(whole.done && whole.consumed == 0);
    if (r.body_until_close) REQUIRE(!whole.done && whole.consumed == stream.size());
    if (!whole.done) return 0;
    stream = stream.subspan(whole.consumed);
  }
  return 0;
}
