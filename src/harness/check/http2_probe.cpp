#include "harness/check/http2_probe.hpp"

#include <memory>

#include "harness/process/http_client.hpp"
#include "harness/process/tls_client.hpp"
#include "harness/process/tls_material.hpp"
#include "http/h2_frame.hpp"

namespace ringside::harness {
namespace {

// The first bytes of an answer, printable, for a line saying what came instead of SETTINGS.
std::string quoted_start(const std::string& bytes) {
  std::string text;
  for (char c : bytes.substr(0, 40)) {
    if (c == '\r' || c == '\n') break;
    text += (c >= 0x20 && c < 0x7f) ? c : '.';
  }
  return "\"" + text + "\"";
}

}  // namespace

std::string prove_http2(const std::string& host, int port, const std::string& ca_file,
                        double timeout_s) {
  std::unique_ptr<TlsClientContext> tls;
  if (!ca_file.empty()) {
    try {
      tls = std::make_unique<TlsClientContext>(ca_file, "localhost", /*offer_h2=*/true);
    } catch (const TlsError& error) {
      return error.what();
    }
  }
  HttpConnection connection;
  std::string error;
  if (!connection.connect(host, port, tls.get(), timeout_s, error)) {
    return "h2: " + error;
  }
  if (tls && connection.tls()->alpn != "h2") {
    return "h2: offered ALPN h2 alone, the TLS handshake agreed on " +
           (connection.tls()->alpn.empty() ? std::string("none") : connection.tls()->alpn) +
           ": it does not serve HTTP/2 over TLS";
  }
  const char* name = tls ? "h2" : "h2c";
  const std::string empty_settings("\x00\x00\x00\x04\x00\x00\x00\x00\x00",
                                   http::kH2FrameHeaderSize);
  if (!connection.send(std::string(http::kH2ClientPreface) + empty_settings, timeout_s, error)) {
    return std::string(name) + ": sending the preface: " + error;
  }
  std::string answer;
  if (!connection.read_bytes(http::kH2FrameHeaderSize, answer, timeout_s, error)) {
    return std::string(name) + ": no HTTP/2 frame after the preface: " + error;
  }
  const http::H2FrameHeader first = http::read_h2_frame_header(answer);
  if (first.type != static_cast<std::uint8_t>(http::H2FrameType::kSettings) ||
      (first.flags & http::h2_flags::kAck) != 0 || first.stream_id != 0) {
    return std::string(name) + ": answered HTTP/2's preface with " + quoted_start(answer) +
           ", not the server's SETTINGS";
  }
  return "";
}

}  // namespace ringside::harness
