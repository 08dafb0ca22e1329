#include "http/response_writer.hpp"

namespace ringside::http {

bool write_response(OutBuffer& out, std::string_view date, Status status,
                    std::string_view content_type, std::string_view body,
                    const ResponseOptions& options) {
  using namespace response_detail;
  if (out.remaining() < response_size(date, status, content_type, body, options)) return false;
  out.append(status_line(status));
  out.append(kBeforeDate);
  out.append(date);
  out.append(kBeforeType);
  out.append(content_type);
  out.append(kBeforeLength);
  out.append_decimal(body.size());
  out.append("\r\n");
  out.append(options.extra_headers);
  if (!options.keep_alive) {
    out.append(kClose);
  } else if (options.http10) {
    out.append(kKeepAlive);
  }
  out.append("\r\n");
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
