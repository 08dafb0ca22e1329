// Fuzzes the request-head parser and the chunked decoder together, the way a connection uses
// them: the input is a stream of pipelined requests, each head followed by its body. Any broken
// invariant traps, so libFuzzer (or the corpus runner under AddressSanitizer) reports it.
//
// Invariants checked at every step:
//   - consumed never exceeds the input and every complete head makes progress;
//   - parsing a prefix (cut at a point derived from the data, one byte short, or at the head-size
//     limit) agrees with parsing the whole: complete with the same head, partial, or the same error;
//   - every string_view of the Request lies inside the head it was parsed from;
//   - tighter ParserLimits never accept what the default limits refuse;
//   - the resumable parse, fed the head in two or three growing pieces with one HeadScan (and the
//     Request clobbered in between, as a worker's shared one would be), answers exactly as the
//     one-shot parse of the whole, and leaves the HeadScan fresh after complete or error;
//   - a complete head's target is origin-form or absolute-form http://, path and host to match;
//   - the chunked decoder gives the same outcome fed whole or in two pieces.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "http/chunked_decoder.hpp"
#include "http/request_parser.hpp"

namespace {

using namespace ringside::http;

constexpr std::uint64_t kMaxBody = 1 << 20;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// A split point the fuzzer can steer: it depends on the bytes at both ends and on the step.
std::size_t split_point(std::span<const char> input, std::size_t salt) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull * (salt + 1) + input.size();
  const std::size_t edge = input.size() < 8 ? input.size() : 8;
  for (std::size_t i = 0; i < edge; ++i) {
    h = h * 31 + static_cast<unsigned char>(input[i]);
    h = h * 31 + static_cast<unsigned char>(input[input.size() - 1 - i]);
  }
  return static_cast<std::size_t>(h % (input.size() + 1));
}

bool lies_within(std::string_view view, std::span<const char> range) {
  if (view.empty()) return true;
  return view.data() >= range.data() && view.data() + view.size() <= range.data() + range.size();
}

bool is_optional_whitespace(char c) { return c == ' ' || c == '\t'; }

void check_header(const Header& header, std::span<const char> head) {
  check(lies_within(header.name, head) && lies_within(header.value, head));
  check(!header.name.empty());
  for (char c : header.name) check(c != ':' && c > 0x20 && c != 0x7f);
  for (char c : header.value) check(c != '\r' && c != '\n' && c != '\0');
  if (!header.value.empty()) {
    check(!is_optional_whitespace(header.value.front()));
    check(!is_optional_whitespace(header.value.back()));
  }
}

void check_complete_head(std::span<const char> input, const ParseResult& r, const Request& req) {
  check(r.error == RequestError::kNone);
  check(r.consumed >= 4 && r.consumed <= input.size() && r.consumed <= kMaxHeadBytes);
  const std::span<const char> head = input.first(r.consumed);
  check(std::string_view(head.data() + head.size() - 4, 4) == "\r\n\r\n");

  check(!req.method_name.empty() && lies_within(req.method_name, head));
  check(!req.target.empty() && lies_within(req.target, head));
  check(lies_within(req.query, head) && lies_within(req.host, head));
  for (char c : req.target) check(c != ' ' && c != '\r' && c != '\n');
  check(!req.path.empty() && req.path.front() == '/');
  if (req.target.front() == '/') {  // origin-form
    check(req.path.data() == req.target.data() && req.path.size() <= req.target.size());
    if (!req.query.empty()) check(req.query.data() == req.path.data() + req.path.size() + 1);
  } else {  // absolute-form: "http://" host [path] ["?" query]
    check(req.target.size() > 7 && (req.target[4] == ':' && req.target[5] == '/'));
    check(!req.host.empty() && req.host.data() == req.target.data() + 7);
    const char* after_host = req.host.data() + req.host.size();
    if (lies_within(req.path, head)) {
      check(req.path.data() == after_host);
    } else {
      check(req.path == "/");  // none in the target
    }
    if (!req.query.empty()) check(req.query.data() > after_host);
  }

  check(req.version_minor <= 1);
  check(req.header_count <= kMaxHeaders);
  for (std::size_t i = 0; i < req.header_count; ++i) {
    check_header(req.headers[i], head);
    // Lookup by name finds the first header of that name, never a later one.
    const std::string_view found = req.header(req.headers[i].name);
    std::size_t first = 0;
    while (found.data() != req.headers[first].value.data()) ++first;
    check(first <= i && found.size() == req.headers[first].value.size());
  }
  switch (req.framing) {
    case BodyFraming::kNone: break;
    case BodyFraming::kContentLength: check(req.content_length > 0); break;
    case BodyFraming::kChunked:
      check(req.version_minor == 1 && req.header("content-length").empty());
      break;
  }
  if (req.expect_continue) check(req.has_body());
}

bool same_request(const Request& a, const Request& b) {
  auto same_view = [](std::string_view x, std::string_view y) {
    return x.data() == y.data() && x.size() == y.size();
  };
  if (!same_view(a.method_name, b.method_name) || !same_view(a.target, b.target) ||
      !same_view(a.path, b.path) || !same_view(a.query, b.query) ||
      !same_view(a.host, b.host) || a.method != b.method ||
      a.version_minor != b.version_minor || a.framing != b.framing ||
      a.content_length != b.content_length || a.keep_alive != b.keep_alive ||
      a.expect_continue != b.expect_continue || a.header_count != b.header_count) {
    return false;
  }
  for (std::size_t i = 0; i < a.header_count; ++i) {
    if (!same_view(a.headers[i].name, b.headers[i].name)) return false;
    if (!same_view(a.headers[i].value, b.headers[i].value)) return false;
  }
  return true;
}

// Parsing a prefix must agree with parsing the whole: it is what a connection sees when the
// head arrives in two reads.
void check_prefix_agrees(std::span<const char> input, const ParseResult& whole,
                         const Request& whole_request, std::size_t split) {
  Request request;
  const ParseResult r = parse_request(input.first(split), request);
  check(r.consumed <= split);
  switch (whole.status) {
    case ParseStatus::kComplete:
      if (split >= whole.consumed) {
        check(r.status == ParseStatus::kComplete && r.consumed == whole.consumed);
        check(same_request(request, whole_request));
      } else {
        check(r.status == ParseStatus::kPartial);
      }
      break;
    case ParseStatus::kPartial: check(r.status == ParseStatus::kPartial); break;
    case ParseStatus::kError:
      check(r.status == ParseStatus::kPartial ||
            (r.status == ParseStatus::kError && r.error == whole.error));
      break;
  }
}

bool is_fresh(const HeadScan& scan) {
  return scan.scanned == 0 && scan.line_start == 0 && scan.header_lines == 0 &&
         !scan.request_line_done;
}

// What another connection leaves in a worker's shared Request between two reads of this one.
void clobber(Request& request) {
  static constexpr std::string_view kOther = "PUT /o?x HTTP/1.0\r\nHost: z\r\nX: y\r\n\r\n";
  check(parse_request(std::span<const char>(kOther.data(), kOther.size()), request).status ==
        ParseStatus::kComplete);
}

bool same_result(const ParseResult& a, const Request& ra, const ParseResult& b, const Request& rb) {
  if (a.status != b.status || a.consumed != b.consumed || a.error != b.error) return false;
  return a.status != ParseStatus::kComplete || same_request(ra, rb);
}

// The head arriving in pieces (ending at `first`, then `second`, then the whole input), parsed
// with one HeadScan: each answer is the one-shot answer for the bytes so far.
void check_resumable_agrees(std::span<const char> input, const ParseResult& whole,
                            const Request& whole_request, std::size_t first, std::size_t second) {
  if (first > second) std::swap(first, second);
  HeadScan scan;
  Request request;
  for (std::size_t length : {first, second, input.size()}) {
    const ParseResult r = parse_request(input.first(length), request, scan);
    if (length == input.size()) {
      check(same_result(r, request, whole, whole_request));
    } else {
      Request one_shot_request;
      check(same_result(r, request, parse_request(input.first(length), one_shot_request),
                        one_shot_request));
    }
    if (r.status != ParseStatus::kPartial) {
      check(is_fresh(scan));
      return;
    }
    check(scan.scanned <= length && scan.line_start <= scan.scanned);
    clobber(request);
  }
}

// Tighter limits may refuse more, never less, and never change what a head means.
void check_tighter_limits_agree(std::span<const char> input, const ParseResult& whole,
                                std::size_t salt) {
  const ParserLimits tight{.max_head_bytes = 32 + salt % 512, .max_headers = salt % 8};
  Request request;
  const ParseResult r = parse_request(input, request, tight);
  if (r.status == ParseStatus::kComplete) {
    check(whole.status == ParseStatus::kComplete && r.consumed == whole.consumed);
    check(r.consumed <= tight.max_head_bytes && request.header_count <= tight.max_headers);
  }
}

ChunkedDecoder::Result check_decoder_result(std::span<const char> input,
                                            const ChunkedDecoder::Result& r) {
  check(r.consumed <= input.size() && r.data_bytes <= r.consumed);
  check(!(r.done && r.error != RequestError::kNone));
  // Until done or wrong, the decoder takes every byte it is given.
  if (!r.done && r.error == RequestError::kNone) check(r.consumed == input.size());
  return r;
}

// Decodes the chunked body at the start of `input` whole and in two pieces and checks that both
// agree. Returns the body's length, or nothing when the stream ends inside it or it is invalid.
std::optional<std::size_t> chunked_body_length(std::span<const char> input, std::size_t salt) {
  ChunkedDecoder whole_decoder(kMaxBody);
  const auto whole = check_decoder_result(input, whole_decoder.feed(input));
  check(whole_decoder.body_bytes() <= kMaxBody);

  const std::size_t split = split_point(input, salt);
  ChunkedDecoder split_decoder(kMaxBody);
  const auto first = check_decoder_result(input.first(split), split_decoder.feed(input.first(split)));
  ChunkedDecoder::Result second;
  if (first.error == RequestError::kNone) {
    const auto rest = input.subspan(first.consumed);
    second = check_decoder_result(rest, split_decoder.feed(rest));
  }
  check(first.consumed + second.consumed == whole.consumed);
  check(first.data_bytes + second.data_bytes == whole.data_bytes);
  check((first.error != RequestError::kNone ? first.error : second.error) == whole.error);
  check((first.done || second.done) == whole.done);
  check(split_decoder.body_bytes() == whole_decoder.body_bytes());

  if (!whole.done) return std::nullopt;
  return whole.consumed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const char> stream(reinterpret_cast<const char*>(data), size);
  std::size_t offset = 0;
  for (std::size_t step = 0; offset < stream.size(); ++step) {
    const std::span<const char> rest = stream.subspan(offset);
    Request request;
    const ParseResult r = parse_request(rest, request);
    // A point the fuzzer steers, plus the two a reader most often stops at: one byte short of
    // the whole, and exactly the head-size limit.
    check_prefix_agrees(rest, r, request, split_point(rest, step));
    if (!rest.empty()) check_prefix_agrees(rest, r, request, rest.size() - 1);
    if (rest.size() > kMaxHeadBytes) check_prefix_agrees(rest, r, request, kMaxHeadBytes);
    check_tighter_limits_agree(rest, r, step + size);
    check_resumable_agrees(rest, r, request, split_point(rest, step + 1),
                           split_point(rest, step + 2));
    if (r.status == ParseStatus::kPartial) {
      check(r.error == RequestError::kNone && r.consumed == 0);
      return 0;
    }
    if (r.status == ParseStatus::kError) {
      check(r.error != RequestError::kNone);
      return 0;
    }
    check_complete_head(rest, r, request);
    offset += r.consumed;  // at least 4 bytes: every complete head makes progress

    if (request.framing == BodyFraming::kContentLength) {
      if (request.content_length > stream.size() - offset) return 0;
      offset += static_cast<std::size_t>(request.content_length);
    } else if (request.framing == BodyFraming::kChunked) {
      auto body_length = chunked_body_length(stream.subspan(offset), step);
      if (!body_length) return 0;
      offset += *body_length;
    }
  }
  return 0;
}
