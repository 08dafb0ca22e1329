#include "http/response_writer.hpp"

namespace ringside::http {

bool write_response(OutBuffer& out, std::string_view date, Status status,
                    std::string_view content_type, std::string_view body,
                    const ResponseOptions& options) {
  std::size_t needed = response_size_bound(content_type, body, options);
  if (date.size() > kDateLength) needed += date.size() - kDateLength;
  if (out.remaining() < needed) return false;
  out.append(status_line(status));
  out.append("Server: ringside\r\nDate: ");
  out.append(date);
  out.append("\r\nContent-Type: ");
  out.append(content_type);
  out.append("\r\nContent-Length: ");
  out.append_decimal(body.size());
  out.append("\r\n");
  out.append(options.extra_headers);
  if (!options.keep_alive) {
    out.append("Connection: close\r\n");
  } else if (options.http10) {
    out.append("Connection: keep-alive\r\n");
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
