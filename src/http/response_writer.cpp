#include "http/response_writer.hpp"

namespace ringside::http {
namespace {

constexpr std::string_view kOkThroughDate = "HTTP/1.1 200 OK\r\nServer: ringside\r\nDate: ";

}  // namespace

bool write_response(OutBuffer& out, std::string_view date, Status status,
                    std::string_view content_type, std::string_view body,
                    const ResponseOptions& options) {
  using namespace response_detail;
  if (out.remaining() < response_size(date, status, content_type, body, options)) return false;
  // The common answer (200, keep-alive, no extra headers) in as few appends as it can take.
  if (status == Status::kOk) {
    static_assert(kOkThroughDate.starts_with(status_line(Status::kOk)) &&
                  kOkThroughDate.ends_with(kBeforeDate));
    out.append(kOkThroughDate);
  } else {
    out.append(status_line(status));
    out.append(kBeforeDate);
  }
  out.append(date);
  out.append(kBeforeType);
  out.append(content_type);
  out.append(kBeforeLength);
  out.append_decimal(body.size());
  if (options.keep_alive && !options.http10 && options.extra_headers.empty()) {
    out.append("\r\n\r\n");
  } else {
    out.append("\r\n");
    out.append(options.extra_headers);
    if (!options.keep_alive) {
      out.append(kClose);
    } else if (options.http10) {
      out.append(kKeepAlive);
    }
    out.append("\r\n");
  }
  if (!options.head_only) out.append(body);
  return true;
}

bool write_continue(OutBuffer& out) {
  constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  if (out.remaining() < kContinue.size()) return false;
  out.append(kContinue);
  return true;
}

}  // namespace ringside::http
