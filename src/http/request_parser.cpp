#include "http/request_parser.hpp"

#include "http/authority.hpp"
#include "http/byte_scan.hpp"
#include "http/field_line.hpp"
#include "http/field_name.hpp"
#include "http/token.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace ringside::http {
namespace {

using enum RequestError;

// Searches for the end of the current line from `from`: returns the index of its CR (followed by
// LF), or npos when the line is not complete yet, with `stopped` set to where the search must
// resume (the end of the input, or a last byte CR whose LF has not arrived). Sets `error` on a
// bare CR or LF.
std::size_t find_line_end(std::string_view in, std::size_t from, std::size_t& stopped,
                          RequestError& error) {
  for (std::size_t i = from; i < in.size(); ++i) {
    char c = in[i];
    if (c == '\r') {
      if (i + 1 == in.size()) {
        stopped = i;
        return std::string_view::npos;
      }
      if (in[i + 1] != '\n') {
        error = kBareLineFeed;
        return std::string_view::npos;
      }
      return i;
    }
    if (c == '\n') {
      error = kBareLineFeed;
      return std::string_view::npos;
    }
  }
  stopped = in.size();
  return std::string_view::npos;
}

// Whether `c` can be byte `k` of a version "HTTP/d.d" (the shape; which versions are supported
// is decided when the line is complete).
constexpr bool fits_version(std::size_t k, char c) {
  constexpr std::string_view kShape = "HTTP/0.0";
  if (k >= kShape.size()) return false;
  return kShape[k] == '0' ? is_digit(c) : c == kShape[k];
}

// find_line_end for the request line, which also checks each byte it passes against the line's
// grammar (method SP target SP version), resuming where the last call stopped (`scan.part`). So
// a line that cannot become a request is refused at its first wrong byte: bytes sent to the plain
// port by a TLS client hold no CRLF, and waiting for one would leave the client waiting for the
// header timeout. A wrong byte before the line's end is reported before a bare CR or LF after
// it, and with the error parse_request_line gives the whole line, so the answer is the same
// however the bytes are split.
std::size_t scan_request_line(std::string_view in, HeadScan& scan, RequestError& error) {
  using Part = HeadScan::Part;
  if (scan.scanned == scan.line_start) {
    scan.part = Part::kMethod;
    scan.part_start = scan.line_start;
  }
  for (std::size_t i = scan.scanned; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\r' || c == '\n') return find_line_end(in, i, scan.scanned, error);
    switch (scan.part) {
      case Part::kMethod:
      case Part::kTarget: {
        const bool method = scan.part == Part::kMethod;
        if (c == ' ') {
          if (i == scan.part_start) {  // an empty method or target
            error = kMalformedRequestLine;
            return std::string_view::npos;
          }
          scan.part = method ? Part::kTarget : Part::kVersion;
          scan.part_start = i + 1;
        } else if (method ? !is_token(c) : !is_target_char(c)) {
          error = method ? kInvalidMethod : kInvalidTarget;
          return std::string_view::npos;
        }
        break;
      }
      case Part::kVersion:
        if (!fits_version(i - scan.part_start, c)) {
          error = kMalformedRequestLine;
          return std::string_view::npos;
        }
        break;
    }
  }
  scan.scanned = in.size();
  return std::string_view::npos;
}

// Where the request line starts: RFC 9112 section 2.2 says to ignore at least one empty line
// before it; we ignore up to two. Depends only on the first four bytes.
std::size_t skip_leading_empty_lines(std::string_view in) {
  std::size_t pos = 0;
  while (in.size() - pos >= 2 && in[pos] == '\r' && in[pos + 1] == '\n' && pos < 4) pos += 2;
  return pos;
}

constexpr bool starts_with_ignore_case(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && equals_ignore_case(s.substr(0, prefix.size()), prefix);
}

// The path of an absolute-form target with none ("http://host", "http://host?q"): RFC 9110
// section 4.2.3 makes an empty path equivalent to "/".
constexpr std::string_view kRootPath = "/";

// Splits the target by its form (RFC 9112 section 3.2) into path, query and, for absolute-form,
// host. Only origin-form and absolute-form http:// are served.
RequestError parse_target(std::string_view target, Request& r) {
  std::string_view path_and_query = target;
  r.host = {};
  if (target.front() != '/') {
    // The scheme is case-insensitive (RFC 3986 section 3.1).
    if (starts_with_ignore_case(target, "https://")) return kMisdirectedScheme;
    if (!starts_with_ignore_case(target, "http://")) {
      return target == "*" ? kAsteriskForm : kInvalidTargetForm;
    }
    std::string_view rest = target.substr(7);
    const std::size_t authority_end = rest.find_first_of("/?");
    // No userinfo ('@' is not valid host syntax: RFC 9110 section 4.2.4 says to refuse it) and no
    // empty host (RFC 9110 section 4.2.1: a recipient MUST reject it).
    HostPort host_port;
    r.host = rest.substr(0, authority_end);
    if (!parse_host_port(r.host, host_port) || host_port.host.empty()) return kInvalidTargetHost;
    path_and_query = authority_end == std::string_view::npos ? std::string_view{}
                                                             : rest.substr(authority_end);
  }
  const auto question = path_and_query.find('?');
  r.path = path_and_query.substr(0, question);
  if (r.path.empty()) r.path = kRootPath;
  r.query = question == std::string_view::npos ? std::string_view{}
                                               : path_and_query.substr(question + 1);
  return kNone;
}

// A whole request line whose every byte scan_request_line has checked: what is left to refuse is
// a part missing or a version cut short, and a version we do not speak.
RequestError parse_request_line(std::string_view line, Request& r) {
  auto sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return kMalformedRequestLine;
  r.method_name = line.substr(0, sp1);
  auto rest = line.substr(sp1 + 1);
  auto sp2 = rest.find(' ');
  if (sp2 == std::string_view::npos) return kMalformedRequestLine;
  r.target = rest.substr(0, sp2);
  auto version = rest.substr(sp2 + 1);
  if (version.size() != 8) return kMalformedRequestLine;
  if (version[5] != '1') return kUnsupportedVersion;
  // A higher minor version is answered as 1.1 (RFC 9110 section 2.5).
  r.version_minor = version[7] == '0' ? 0 : 1;
  r.method = method_of(r.method_name);
  return parse_target(r.target, r);
}

RequestError parse_header_line(std::string_view line, Header& header) {
  switch (split_field_line(line, header)) {
    case FieldLineError::kNone: return kNone;
    case FieldLineError::kObsoleteLineFolding: return kObsoleteLineFolding;
    case FieldLineError::kSpaceBeforeColon: return kSpaceBeforeColon;
    case FieldLineError::kMalformed: return kMalformedHeader;
    case FieldLineError::kControlCharacter: return kControlCharacter;
  }
  return kMalformedHeader;
}

// The common case of a line, checked in the one pass that finds its end (byte_scan.hpp). Each
// fast form accepts only lines the general form (find_line_end, then parse_request_line or
// parse_header_line) accepts, and fills `r` as it would; on anything else, a line not complete
// yet included, it returns kNoLine having decided nothing, and the general form takes the line.
// So the answers, error codes and their order are the general form's by construction.
constexpr std::size_t kNoLine = std::string_view::npos;

struct FastLine {
  std::size_t line_end = kNoLine;  // the index of the line's CR, or kNoLine: use the general form
  RequestError error = kNone;      // from parse_target, for a request line that is otherwise good
};

// "METHOD SP target SP HTTP/1.x CRLF", with the version exactly "HTTP/1.1" or "HTTP/1.0".
FastLine fast_request_line(std::string_view in, std::size_t start, Request& r) {
  const char* const begin = in.data();
  const char* const end = begin + in.size();
  const char* const method = begin + start;
  const char* p = skip_class(method, end, kTokenClass);
  if (p == method || p == end || *p != ' ') return {};
  const char* const target = p + 1;
  p = skip_target(target, end);
  if (p == target || p == end || *p != ' ') return {};
  ++p;
  constexpr std::string_view kHttp11 = "HTTP/1.1\r\n";
  if (end - p < static_cast<std::ptrdiff_t>(kHttp11.size()) ||
      std::memcmp(p, kHttp11.data(), 7) != 0 || (p[7] != '1' && p[7] != '0') || p[8] != '\r' ||
      p[9] != '\n') {
    return {};
  }
  r.method_name = {method, static_cast<std::size_t>(target - 1 - method)};
  r.target = {target, static_cast<std::size_t>(p - 1 - target)};
  r.version_minor = p[7] == '1' ? 1 : 0;
  r.method = method_of(r.method_name);
  return {static_cast<std::size_t>(p + 8 - begin), parse_target(r.target, r)};
}

// "Name:" OWS value OWS CRLF with a token name and field-value characters, not empty.
std::size_t fast_header_line(std::string_view in, std::size_t start, Header& header,
                             FieldName& field) {
  const char* const begin = in.data();
  const char* const end = begin + in.size();
  const char* const name = begin + start;
  const KnownField known = match_known_field(name, end);
  const char* name_end = name + known.name_size;
  if (known.name_size == 0) {
    name_end = skip_class(name, end, kTokenClass);
    if (name_end == name || name_end == end || *name_end != ':') return kNoLine;
  }
  const char* p = name_end + 1;
  while (p != end && is_whitespace(*p)) ++p;
  const char* const value = p;
  p = skip_field_value(p, end);
  if (end - p < 2 || p[0] != '\r' || p[1] != '\n') return kNoLine;
  const char* value_end = p;
  while (value_end != value && is_whitespace(value_end[-1])) --value_end;
  header = {{name, static_cast<std::size_t>(name_end - name)},
            {value, static_cast<std::size_t>(value_end - value)}};
  field = known.name_size != 0 ? known.field : field_name(header.name);
  return static_cast<std::size_t>(p - begin);
}

// Applies the headers that decide framing and connection handling.
// `fields` holds the FieldName of each header.
RequestError interpret_headers(Request& r, std::span<const FieldName> fields) {
  bool has_length = false;
  bool has_transfer_encoding = false;
  int codings = 0;
  int chunked_codings = 0;
  std::string_view last_coding;
  bool saw_host = false;
  bool close = false;
  bool keep_alive = false;
  for (std::size_t i = 0; i < r.header_count; ++i) {
    const Header& h = r.headers[i];
    const FieldName name = fields[i];
    if (name == FieldName::kOther) continue;
    if (name == FieldName::kContentLength) {
      // A list of identical values is accepted (RFC 9110 section 8.6); anything else is refused.
      bool invalid = false;
      bool conflict = false;
      int elements = 0;
      for_each_list_element(h.value, [&](std::string_view element) {
        std::uint64_t length = 0;
        ++elements;
        if (!parse_length(element, length)) {
          invalid = true;
        } else if (has_length && length != r.content_length) {
          conflict = true;
        }
        has_length = true;
        r.content_length = length;
        return !invalid && !conflict;
      });
      if (invalid || elements == 0) return kInvalidContentLength;
      if (conflict) return kConflictingContentLength;
    } else if (name == FieldName::kTransferEncoding) {
      has_transfer_encoding = true;
      for_each_list_element(h.value, [&](std::string_view coding) {
        ++codings;
        chunked_codings += equals_ignore_case(coding, "chunked");
        last_coding = coding;
        return true;
      });
    } else if (name == FieldName::kHost) {
      if (saw_host) return kRepeatedHost;
      saw_host = true;
      // An empty value is valid (RFC 9112 section 3.2: sent when the target URI has no authority).
      HostPort host_port;
      if (!parse_host_port(h.value, host_port)) return kInvalidHost;
      // An absolute-form target's authority overrides Host (RFC 9112 section 3.2.2).
      if (r.target.front() == '/') r.host = h.value;
    } else if (name == FieldName::kConnection) {
      for_each_list_element(h.value, [&](std::string_view token) {
        if (equals_ignore_case(token, "close")) close = true;
        if (equals_ignore_case(token, "keep-alive")) keep_alive = true;
        return true;
      });
    } else {  // Expect
      if (!equals_ignore_case(h.value, "100-continue")) return kUnsupportedExpectation;
      r.expect_continue = true;
    }
  }
  if (has_transfer_encoding) {
    if (has_length) return kLengthAndTransferEncoding;
    if (r.version_minor == 0) return kTransferEncodingInHttp10;
    // RFC 9112 section 6.3: when chunked is not the final coding (or is applied twice) the body
    // length cannot be known: 400. Any other coding is one we do not implement: 501.
    if (chunked_codings > 0 && (chunked_codings > 1 || !equals_ignore_case(last_coding, "chunked"))) {
      return kChunkedNotLast;
    }
    if (chunked_codings == 0 || codings > 1) return kUnsupportedTransferEncoding;
    r.framing = BodyFraming::kChunked;
  } else if (has_length) {
    r.framing = r.content_length > 0 ? BodyFraming::kContentLength : BodyFraming::kNone;
  }
  if (r.version_minor == 1 && !saw_host) return kMissingHost;
  r.keep_alive = r.version_minor == 1 ? !close : (keep_alive && !close);
  // RFC 9110 section 10.1.1: a server MUST ignore 100-continue in an HTTP/1.0 request.
  if (r.framing == BodyFraming::kNone || r.version_minor == 0) r.expect_continue = false;
  return kNone;
}

}  // namespace

Method method_of(std::string_view m) {
  switch (m.size()) {
    case 3:
      if (m == "GET") return Method::kGet;
      if (m == "PUT") return Method::kPut;
      break;
    case 4:
      if (m == "HEAD") return Method::kHead;
      if (m == "POST") return Method::kPost;
      break;
    case 5:
      if (m == "PATCH") return Method::kPatch;
      if (m == "TRACE") return Method::kTrace;
      break;
    case 6:
      if (m == "DELETE") return Method::kDelete;
      break;
    case 7:
      if (m == "OPTIONS") return Method::kOptions;
      if (m == "CONNECT") return Method::kConnect;
      break;
    default:
      break;
  }
  return Method::kOther;
}

std::string_view Request::header(std::string_view name) const {
  for (const Header& h : header_list()) {
    if (equals_ignore_case(h.name, name)) return h.value;
  }
  return {};
}

ParseResult parse_request(std::span<const char> input, Request& r, const ParserLimits& limits) {
  HeadScan scan;
  return parse_request(input, r, scan, limits);
}

ParseResult parse_request(std::span<const char> input, Request& r, HeadScan& scan,
                          const ParserLimits& limits) {
  // Look no further than the limit: a head that does not end within it is too large whatever
  // follows, so the answer cannot depend on how much of the rest has arrived (a bare LF after
  // the limit would otherwise turn 431 into 400 depending on the read size).
  const std::size_t limit = limits.max_head_bytes;
  std::string_view in(input.data(), std::min(input.size(), limit));
  const std::size_t max_headers = std::min(limits.max_headers, r.headers.size());
  if (scan.scanned > in.size() || scan.line_start > scan.scanned) scan = {};
  // Lines checked by earlier calls left nothing in `r` that can be trusted now.
  const bool fills_request = !scan.request_line_done;
  r.header_count = 0;
  r.framing = BodyFraming::kNone;
  r.content_length = 0;
  r.expect_continue = false;

  auto fail = [&scan](RequestError e) {
    scan = {};
    return ParseResult{ParseStatus::kError, 0, e};
  };
  std::size_t head_size = 0;
  // What each header is, found while its line is parsed (zeroed: a HeadScan from a caller that
  // broke its contract could claim header lines this call never saw).
  std::array<FieldName, kMaxHeaders> fields{};
  if (!scan.request_line_done) {
    scan.line_start = skip_leading_empty_lines(in);
    scan.scanned = std::max(scan.scanned, scan.line_start);
  }
  while (true) {
    // A line nothing of which has been looked at yet may take the fast form; one resumed in the
    // middle continues its search for the end where the last call stopped.
    const bool fresh_line = scan.scanned == scan.line_start;
    if (fresh_line && !scan.request_line_done) {
      const FastLine fast = fast_request_line(in, scan.line_start, r);
      if (fast.line_end != kNoLine) {
        if (fast.error != kNone) return fail(fast.error);
        scan.request_line_done = true;
        scan.line_start = scan.scanned = fast.line_end + 2;
        continue;
      }
    } else if (fresh_line) {
      const std::size_t start = scan.line_start;
      if (in.size() - start >= 2 && in[start] == '\r' && in[start + 1] == '\n') {
        head_size = start + 2;  // the empty line ends the head
        break;
      }
      if (scan.header_lines < max_headers) {
        const std::size_t line_end =
            fast_header_line(in, start, r.headers[scan.header_lines], fields[scan.header_lines]);
        if (line_end != kNoLine) {
          ++scan.header_lines;
          scan.line_start = scan.scanned = line_end + 2;
          continue;
        }
      }
    }
    RequestError error = kNone;
    const std::size_t line_end = scan.request_line_done
                                     ? find_line_end(in, scan.scanned, scan.scanned, error)
                                     : scan_request_line(in, scan, error);
    if (error != kNone) return fail(error);
    const RequestError too_large = scan.request_line_done ? kHeadTooLarge : kUriTooLong;
    if (line_end == std::string_view::npos) {
      return in.size() >= limit ? fail(too_large) : ParseResult{ParseStatus::kPartial};
    }
    if (line_end + 2 > limit) return fail(too_large);
    const std::string_view line = in.substr(scan.line_start, line_end - scan.line_start);
    const std::size_t next_line = line_end + 2;
    if (!scan.request_line_done) {
      if (auto e = parse_request_line(line, r); e != kNone) return fail(e);
      scan.request_line_done = true;
    } else if (line.empty()) {
      head_size = next_line;  // the empty line ends the head
      break;
    } else {
      if (scan.header_lines == max_headers) return fail(kTooManyHeaders);
      Header& header = r.headers[scan.header_lines];
      if (auto e = parse_header_line(line, header); e != kNone) return fail(e);
      fields[scan.header_lines] = field_name(header.name);
      ++scan.header_lines;
    }
    scan.line_start = scan.scanned = next_line;
  }
  const std::size_t header_count = scan.header_lines;
  scan = {};
  // Once per head: the earlier calls' lines are parsed again, into `r` this time.
  if (!fills_request) return parse_request(input.first(head_size), r, scan, limits);
  r.header_count = header_count;
  if (auto e = interpret_headers(r, {fields.data(), header_count}); e != kNone) return fail(e);
  return {ParseStatus::kComplete, head_size, kNone};
}

}  // namespace ringside::http
