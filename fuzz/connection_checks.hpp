// What the fuzz targets that drive a whole server connection share (connection_fuzz.cpp, and
// tls_connection_fuzz.cpp over TLS): the script their input is read as, the way an invariant
// breaks (its name on stderr, then abort, which libFuzzer and the corpus runner report), and the
// checks of what a client sent against what it got back, with the project's own request and
// response parsers.
#pragma once

#include <algorithm>
#include <cerrno>  // program_invocation_short_name
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "http/chunked_decoder.hpp"
#include "http/request_error.hpp"
#include "http/request_parser.hpp"
#include "http/response_parser.hpp"

namespace ringside::fuzz {

[[noreturn]] inline void fail(const char* invariant) {
  std::fprintf(stderr, "%s: invariant broken: %s\n", program_invocation_short_name, invariant);
  std::abort();
}

inline void check(bool ok, const char* invariant) {
  if (!ok) fail(invariant);
}

// The fuzz input, read op by op; reads past its end give zeros (an input may stop anywhere).
class Script {
 public:
  explicit Script(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  [[nodiscard]] bool done() const { return pos_ >= bytes_.size(); }
  std::uint8_t u8() { return done() ? 0 : bytes_[pos_++]; }
  std::uint16_t u16() {
    const std::uint16_t high = u8();
    return static_cast<std::uint16_t>(high << 8 | u8());
  }
  // Up to `n` bytes: a length running past the end takes what is left.
  std::span<const char> take(std::size_t n) {
    n = std::min(n, bytes_.size() - pos_);
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return {reinterpret_cast<const char*>(out.data()), out.size()};
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

// What the client's bytes ask for, parsed as the server parses them.
struct SentRequests {
  std::size_t heads = 0;     // complete request heads
  std::size_t complete = 0;  // heads whose body is complete too
  std::vector<bool> is_head_method;
};

inline SentRequests parse_sent(std::span<const char> sent, std::uint64_t max_body) {
  SentRequests out;
  http::Request request;
  std::size_t pos = 0;
  while (pos < sent.size()) {
    http::ParseResult r = http::parse_request(sent.subspan(pos), request);
    if (r.status != http::ParseStatus::kComplete) break;
    ++out.heads;
    out.is_head_method.push_back(request.method == http::Method::kHead);
    pos += r.consumed;
    if (request.framing == http::BodyFraming::kContentLength) {
      if (request.content_length > max_body || request.content_length > sent.size() - pos) break;
      pos += static_cast<std::size_t>(request.content_length);
    } else if (request.framing == http::BodyFraming::kChunked) {
      http::ChunkedDecoder decoder(max_body);
      auto body = decoder.feed(sent.subspan(pos));
      if (body.error != http::RequestError::kNone || !body.done) break;
      pos += body.consumed;
    }
    ++out.complete;
  }
  return out;
}

// Statuses the connection writes itself for a refused request (always with a body, even to HEAD).
inline bool is_request_error_status(std::uint16_t status) {
  for (int e = 1; e <= static_cast<int>(http::RequestError::kHeaderTimeout); ++e) {
    if (static_cast<std::uint16_t>(http::describe(static_cast<http::RequestError>(e)).status) ==
        status) {
      return true;
    }
  }
  return false;
}

struct ReceivedResponses {
  std::size_t finals = 0;
  bool ended_with_close = false;  // the last final response said "Connection: close"
  bool truncated = false;
};

inline ReceivedResponses parse_received(std::span<const char> received, const SentRequests& sent,
                                 bool may_be_truncated) {
  ReceivedResponses out;
  std::size_t pos = 0;
  while (pos < received.size()) {
    check(!out.ended_with_close, "bytes after a Connection: close response");
    auto rest = received.subspan(pos);
    http::Response response;
    http::ResponseParseResult head = http::parse_response_head(rest, response);
    if (head.status == http::ParseStatus::kPartial) {
      check(may_be_truncated, "response head cut short");
      out.truncated = true;
      break;
    }
    check(head.status == http::ParseStatus::kComplete, "response head does not parse");
    if (response.is_interim()) {
      check(response.status == 100, "interim response other than 100 Continue");
      pos += head.consumed;
      continue;
    }
    const bool to_head = out.finals < sent.is_head_method.size() &&
                         sent.is_head_method[out.finals] &&
                         !is_request_error_status(response.status);
    if (to_head) head = http::parse_response_head(rest, response, {.request_was_head = true});
    check(!response.body_until_close, "response without Content-Length");
    http::ResponseBodyReader body(response);
    auto result = body.feed(rest.subspan(head.consumed));
    check(result.error == http::ResponseError::kNone, "response body does not parse");
    if (!result.done) {
      check(may_be_truncated, "response body cut short");
      out.truncated = true;
      break;
    }
    pos += head.consumed + result.consumed;
    ++out.finals;
    out.ended_with_close = !response.keep_alive;
  }
  return out;
}

}  // namespace ringside::fuzz
