// A blocking HTTP/1.1 client for checking servers, not for load: one connection to 127.0.0.1,
// every wait bounded by a timeout, responses framed by ringside's own response parser
// (http/response_parser.hpp), so a contestant is judged by the same framing rules as under load.
// Over TLS too (https workloads): given a TlsClientContext, a connect also makes the handshake
// (tls_client.hpp), and everything after it goes through the TLS stream.
//
//   HttpConnection connection;
//   if (!connection.connect(port, 5.0, error)) ...
//   if (!connection.connect(host, port, &tls_context, 5.0, error)) ...   // https: + handshake
//   connection.send(get_request("/json"), error);
//   HttpResponse response;
//   if (!connection.read_response(response, 5.0, error)) ...   // error: one phrase
//
// Bytes after a response stay buffered for the next read, so pipelined responses are read one by
// one in order. A close waits for the server's own close, so it never resets the connection.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringside::http {
struct Response;
class ResponseBodyReader;
}  // namespace ringside::http

namespace ringside::harness {

class TlsClientContext;
class TlsStream;
struct TlsFacts;

enum class Framing { kContentLength, kChunked, kUntilClose, kNone };

struct HttpResponse {
  int status = 0;
  int version_minor = 1;
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
  std::string body;                                            // decoded (chunks joined)
  Framing framing = Framing::kNone;
  bool keep_alive = true;  // false: the server said Connection: close (or HTTP/1.0 without keep-alive)

  // The first header of that name (ASCII case-insensitive); nullptr when absent.
  [[nodiscard]] const std::string* header(std::string_view name) const;
};

class HttpConnection {
 public:
  HttpConnection();
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Connects to 127.0.0.1:port with TCP_NODELAY; false with `error` set ("connection refused").
  bool connect(int port, double timeout_s, std::string& error);
  // The same to another local address (an IPv4 or IPv6 literal).
  bool connect(const std::string& host, int port, double timeout_s, std::string& error);
  // The same, then, when `tls` is not null, the TLS handshake: verified against its CA, for its
  // server name; `error` says which step failed.
  bool connect(const std::string& host, int port, const TlsClientContext* tls, double timeout_s,
               std::string& error);
  // What the handshake agreed on; nullptr on a plain connection.
  [[nodiscard]] const TlsFacts* tls() const;
  bool send(std::string_view bytes, double timeout_s, std::string& error);
  // One send() per byte with `pause` after each, so the request reaches the server in many
  // segments (TCP_NODELAY stops the kernel from merging them).
  bool send_bytewise(std::string_view bytes, std::chrono::milliseconds pause, double timeout_s,
                     std::string& error);
  // The next whole response; false with `error` set on a timeout, a close, or bad framing.
  bool read_response(HttpResponse& response, double timeout_s, std::string& error);
  // Bytes received beyond the responses read so far.
  [[nodiscard]] std::size_t buffered() const { return buffer_.size(); }
  // Raw bytes, not a response: waits until at least `count` are buffered and hands them over
  // (every byte buffered); false with `error` set on a timeout or a close before that.
  bool read_bytes(std::size_t count, std::string& bytes, double timeout_s, std::string& error);
  // When the last response read arrived: the receive that brought its first bytes, the one that
  // completed it, and how many receives it took (1: one piece). Exact for a response read after
  // its request, with nothing buffered before it (no pipelining).
  struct Arrival {
    std::chrono::steady_clock::time_point first_byte, last_byte;
    unsigned pieces = 0;
  };
  [[nodiscard]] const Arrival& arrival() const { return arrival_; }
  // Closes gracefully (also on destruction): FIN, then what the server still sends is read and
  // dropped until it closes too (at most 1 s), so the checker's close never resets a connection
  // the server is still answering on.
  void close();

 private:
  using Deadline = std::chrono::steady_clock::time_point;
  // Reads more bytes, waiting until the deadline; 0 at EOF, -1 on error or timeout (error set).
  long fill(Deadline deadline, std::string& error);
  // The final (non-1xx) head parsed from the front of the buffer, reading as needed: its length
  // in bytes (still buffered: head's views point into them), or 0 with error set.
  std::size_t read_head(Deadline deadline, http::Response& head, std::string& error);
  bool read_body(Deadline deadline, const http::Response& head, HttpResponse& out,
                 std::string& error);
  bool feed_body(http::ResponseBodyReader& reader, HttpResponse& out, std::string& error);

  int fd_ = -1;
  std::unique_ptr<TlsStream> tls_;  // https: every byte goes through it
  std::string buffer_;
  Arrival arrival_;
};

// "GET PATH HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
std::string get_request(std::string_view path);

// One GET on a fresh connection.
bool fetch(int port, std::string_view path, double timeout_s, HttpResponse& response,
           std::string& error);
bool fetch(const std::string& host, int port, std::string_view path, double timeout_s,
           HttpResponse& response, std::string& error);
// Over TLS when `tls` is not null.
bool fetch(const std::string& host, int port, const TlsClientContext* tls, std::string_view path,
           double timeout_s, HttpResponse& response, std::string& error);

}  // namespace ringside::harness
