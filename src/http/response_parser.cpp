#include "http/response_parser.hpp"

#include <algorithm>

#include "http/field_line.hpp"
#include "http/token.hpp"

namespace ringside::http {
namespace {

using enum ResponseError;

enum class LineScan : std::uint8_t { kComplete, kPartial, kBareCr };

struct Line {
  std::size_t end = 0;   // one past the line's content, before its CRLF or LF
  std::size_t next = 0;  // where the following line starts
};

// A bare LF ends a line, with or without a CR before it (RFC 9112 section 2.2 allows a recipient
// this); a CR followed by anything but LF is refused, as the same section asks.
LineScan find_line(std::string_view in, std::size_t pos, Line& line) {
  auto i = in.find_first_of("\r\n", pos);
  if (i == std::string_view::npos) return LineScan::kPartial;
  if (in[i] == '\n') {
    line = {i, i + 1};
    return LineScan::kComplete;
  }
  if (i + 1 == in.size()) return LineScan::kPartial;
  if (in[i + 1] != '\n') return LineScan::kBareCr;
  line = {i, i + 2};
  return LineScan::kComplete;
}

constexpr std::string_view kVersionPrefix = "HTTP/";

// status-line = HTTP-version SP status-code SP [ reason-phrase ]  (RFC 9112 section 4)
ResponseError parse_status_line(std::string_view line, Response& r) {
  if (line.size() < 9 || line.substr(0, 5) != kVersionPrefix || !is_digit(line[5]) ||
      line[6] != '.' || !is_digit(line[7]) || line[8] != ' ') {
    return kMalformedStatusLine;
  }
  if (line[5] != '1') return kUnsupportedVersion;
  // A higher minor version is read as 1.1 (RFC 9110 section 2.5).
  r.version_minor = line[7] == '0' ? 0 : 1;
  if (line.size() < 12 || !is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11])) {
    return kInvalidStatusCode;
  }
  // The SP before an empty reason is often left out; accepting that changes no framing.
  if (line.size() > 12 && line[12] != ' ') return kInvalidStatusCode;
  r.status =
      static_cast<std::uint16_t>((line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0'));
  // RFC 9110 section 15 calls codes outside 100-599 invalid; a load generator gains nothing from
  // guessing what a 0xx or 6xx meant, so they are errors rather than 5xx.
  if (r.status < 100 || r.status > 599) return kInvalidStatusCode;
  r.reason = line.size() > 12 ? line.substr(13) : std::string_view{};
  for (char c : r.reason) {
    if (!is_value_char(c)) return kControlCharacter;
  }
  return kNone;
}

// Obsolete folding is refused rather than unfolded: RFC 9112 section 5.2 asks a user agent to
// replace it with SP, which needs a copy, and no server we measure should send it.
ResponseError parse_header_line(std::string_view line, Header& header) {
  switch (split_field_line(line, header)) {
    case FieldLineError::kNone: return kNone;
    case FieldLineError::kObsoleteLineFolding: return kObsoleteLineFolding;
    case FieldLineError::kSpaceBeforeColon: return kSpaceBeforeColon;
    case FieldLineError::kMalformed: return kMalformedHeader;
    case FieldLineError::kControlCharacter: return kControlCharacter;
  }
  return kMalformedHeader;
}

// A list of identical values is one length (RFC 9110 section 8.6); anything else is refused.
ResponseError read_content_length(std::string_view value, bool& has_length, std::uint64_t& length) {
  ResponseError error = kNone;
  int elements = 0;
  for_each_list_element(value, [&](std::string_view element) {
    std::uint64_t parsed = 0;
    ++elements;
    if (!parse_length(element, parsed)) {
      error = kInvalidContentLength;
    } else if (has_length && parsed != length) {
      error = kConflictingContentLength;
    }
    has_length = true;
    length = parsed;
    return error == kNone;
  });
  return elements == 0 ? kInvalidContentLength : error;
}

// RFC 9112 section 6.3, items 1-2: these responses end with their head, whatever the headers say,
// so their framing headers are not even read.
bool has_no_body(const Response& r, const ResponseParseOptions& options) {
  return options.request_was_head || (r.status >= 100 && r.status < 200) || r.status == 204 ||
         r.status == 304;
}

ResponseError interpret_headers(Response& r, bool bodiless) {
  bool has_length = false;
  bool has_transfer_encoding = false;
  bool chunked_last = false;
  bool close = false;
  bool keep_alive = false;
  std::uint64_t length = 0;
  for (const Header& h : r.header_list()) {
    if (equals_ignore_case(h.name, "connection")) {
      for_each_list_element(h.value, [&](std::string_view token) {
        if (equals_ignore_case(token, "close")) close = true;
        if (equals_ignore_case(token, "keep-alive")) keep_alive = true;
        return true;
      });
    } else if (bodiless) {
      continue;
    } else if (equals_ignore_case(h.name, "content-length")) {
      if (auto e = read_content_length(h.value, has_length, length); e != kNone) return e;
    } else if (equals_ignore_case(h.name, "transfer-encoding")) {
      has_transfer_encoding = true;
      for_each_list_element(h.value, [&](std::string_view coding) {
        chunked_last = equals_ignore_case(coding, "chunked");
        return true;
      });
    }
  }
  if (bodiless) {
    // Nothing to do: framing stays kNone.
  } else if (has_transfer_encoding) {
    // RFC 9112 section 6.1: both headers "ought to be handled as an error", and Transfer-Encoding
    // in HTTP/1.0 means the framing is faulty.
    if (has_length) return kLengthAndTransferEncoding;
    if (r.version_minor == 0) return kTransferEncodingInHttp10;
    // Section 6.3 item 4: a final coding other than chunked is read until close.
    if (chunked_last) {
      r.framing = BodyFraming::kChunked;
    } else {
      r.body_until_close = true;
    }
  } else if (has_length) {
    r.content_length = length;
    r.framing = length > 0 ? BodyFraming::kContentLength : BodyFraming::kNone;
  } else {
    r.body_until_close = true;  // section 6.3 item 8
  }
  r.keep_alive = (r.version_minor == 1 ? !close : (keep_alive && !close)) && !r.body_until_close;
  return kNone;
}

ResponseParseResult error_result(ResponseError e) {
  return {ParseStatus::kError, 0, e};
}

// A line that did not end within the window: more bytes may finish it, unless the window is full.
ResponseParseResult unfinished(std::size_t input_size, std::size_t limit) {
  return input_size >= limit ? error_result(kHeadTooLarge)
                             : ResponseParseResult{ParseStatus::kPartial};
}

}  // namespace

std::string_view Response::header(std::string_view name) const {
  for (const Header& h : header_list()) {
    if (equals_ignore_case(h.name, name)) return h.value;
  }
  return {};
}

ResponseParseResult parse_response_head(std::span<const char> input, Response& r,
                                        const ResponseParseOptions& options) {
  // Field by field: assigning a fresh Response would clear all 100 header slots on every call.
  r.version_minor = 1;
  r.status = 0;
  r.reason = {};
  r.framing = BodyFraming::kNone;
  r.body_until_close = false;
  r.content_length = 0;
  r.keep_alive = true;
  r.header_count = 0;
  const std::size_t limit = options.max_head_bytes;
  // Lines are only looked for inside the limit, so a prefix and the whole input report the same
  // error: the first thing wrong within the first `limit` bytes.
  std::string_view in(input.data(), std::min(input.size(), limit));

  // Garbage where a status line should be is refused at once, not after waiting for a line end.
  if (auto n = std::min(in.size(), kVersionPrefix.size());
      in.substr(0, n) != kVersionPrefix.substr(0, n)) {
    return error_result(kMalformedStatusLine);
  }
  Line line;
  switch (find_line(in, 0, line)) {
    case LineScan::kBareCr:
      return error_result(kBareCarriageReturn);
    case LineScan::kPartial:
      return unfinished(input.size(), limit);
    case LineScan::kComplete:
      break;
  }
  if (auto e = parse_status_line(in.substr(0, line.end), r); e != kNone) return error_result(e);

  std::size_t pos = line.next;
  while (true) {
    switch (find_line(in, pos, line)) {
      case LineScan::kBareCr:
        return error_result(kBareCarriageReturn);
      case LineScan::kPartial:
        return unfinished(input.size(), limit);
      case LineScan::kComplete:
        break;
    }
    if (line.end == pos) break;  // the empty line ends the head
    if (r.header_count == kMaxHeaders) return error_result(kTooManyHeaders);
    if (auto e = parse_header_line(in.substr(pos, line.end - pos), r.headers[r.header_count]);
        e != kNone) {
      return error_result(e);
    }
    ++r.header_count;
    pos = line.next;
  }
  if (auto e = interpret_headers(r, has_no_body(r, options)); e != kNone) return error_result(e);
  return {ParseStatus::kComplete, line.next, kNone};
}

void ResponseBodyReader::start(const Response& response) {
  body_bytes_ = 0;
  remaining_ = 0;
  error_ = kNone;
  if (response.body_until_close) {
    mode_ = Mode::kUntilClose;
  } else if (response.framing == BodyFraming::kChunked) {
    // Response bodies are not bounded, so bounding their framing would protect nothing and would
    // refuse a server that streams many small chunks.
    chunked_.reset(ChunkedDecoder::kUnlimited, ChunkedDecoder::kUnboundedFraming);
    mode_ = Mode::kChunked;
  } else if (response.framing == BodyFraming::kContentLength && response.content_length > 0) {
    remaining_ = response.content_length;
    mode_ = Mode::kLength;
  } else {
    mode_ = Mode::kDone;
  }
}

ResponseBodyReader::Result ResponseBodyReader::fail(std::size_t consumed, ResponseError error) {
  mode_ = Mode::kFailed;
  error_ = error;
  return {consumed, 0, false, error};
}

ResponseBodyReader::Result ResponseBodyReader::feed(std::span<const char> input) {
  switch (mode_) {
    case Mode::kDone:
      return {0, 0, true, kNone};
    case Mode::kFailed:
      return {0, 0, false, error_};
    case Mode::kLength: {
      auto take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, input.size()));
      remaining_ -= take;
      body_bytes_ += take;
      if (remaining_ == 0) mode_ = Mode::kDone;
      return {take, take, mode_ == Mode::kDone, kNone};
    }
    case Mode::kChunked: {
      auto r = chunked_.feed(input);
      if (r.error != RequestError::kNone) {
        // The decoder's only limit without a body cap is the trailer size.
        return fail(r.consumed,
                    r.error == RequestError::kHeadTooLarge ? kTrailersTooLarge : kMalformedChunk);
      }
      body_bytes_ += r.data_bytes;
      if (r.done) mode_ = Mode::kDone;
      return {r.consumed, r.data_bytes, r.done, kNone};
    }
    case Mode::kUntilClose:
      body_bytes_ += input.size();
      return {input.size(), input.size(), false, kNone};
  }
  return {};
}

ResponseBodyReader::Result ResponseBodyReader::finish_at_close() {
  switch (mode_) {
    case Mode::kDone:
      return {0, 0, true, kNone};
    case Mode::kFailed:
      return {0, 0, false, error_};
    case Mode::kUntilClose:
      mode_ = Mode::kDone;
      return {0, 0, true, kNone};
    case Mode::kLength:
    case Mode::kChunked:
      return fail(0, kTruncatedBody);
  }
  return {};
}

}  // namespace ringside::http
