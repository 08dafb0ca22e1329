// The checks' TLS client (harness/process/tls_client.hpp) under HttpConnection, against a small
// OpenSSL server in a thread of this test, with a run's throwaway certificates.
#include "harness/process/tls_client.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "harness/process/http_client.hpp"
#include "harness/process/tls_material.hpp"

namespace ringside::harness {
namespace {

constexpr std::string_view kAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

int listen_on_loopback(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  listen(fd, 4);
  socklen_t size = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  port = ntohs(address.sin_port);
  return fd;
}

int select_http11(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
                  unsigned int in_length, void*) {
  unsigned char* chosen = nullptr;
  static const unsigned char kOffer[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  if (SSL_select_next_proto(&chosen, out_length, kOffer, sizeof kOffer, in, in_length) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

// Answers one connection: over TLS with `files` (TLS 1.2 at most when `tls12`), or in plain text
// when `files` is null. Listening before the constructor returns, so a client may connect at once.
class OneShotServer {
 public:
  OneShotServer(const TlsFiles* files, bool tls12 = false) {
    listener_ = listen_on_loopback(port_);
    if (files != nullptr) {
      context_ = SSL_CTX_new(TLS_server_method());
      SSL_CTX_use_certificate_file(context_, files->cert.c_str(), SSL_FILETYPE_PEM);
      SSL_CTX_use_PrivateKey_file(context_, files->key.c_str(), SSL_FILETYPE_PEM);
      if (tls12) SSL_CTX_set_max_proto_version(context_, TLS1_2_VERSION);
      SSL_CTX_set_alpn_select_cb(context_, select_http11, nullptr);
    }
    thread_ = std::thread([this] { serve(); });
  }
  ~OneShotServer() {
    thread_.join();
    ::close(listener_);
    SSL_CTX_free(context_);
  }
  int port() const { return port_; }

 private:
  void serve() {
    const int fd = accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    if (context_ == nullptr) {
      char head[512];
      (void)recv(fd, head, sizeof head, 0);
      (void)send(fd, "HTTP/1.1 400 Bad Request\r\n\r\n", 28, MSG_NOSIGNAL);
    } else {
      SSL* ssl = SSL_new(context_);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) == 1) {
        std::string request;
        char chunk[512];
        std::size_t got = 0;
        while (request.find("\r\n\r\n") == std::string::npos &&
               SSL_read_ex(ssl, chunk, sizeof chunk, &got) == 1) {
          request.append(chunk, got);
        }
        std::size_t written = 0;
        SSL_write_ex(ssl, kAnswer.data(), kAnswer.size(), &written);
        SSL_shutdown(ssl);
      }
      SSL_free(ssl);
    }
    shutdown(fd, SHUT_WR);
    char rest[512];
    while (recv(fd, rest, sizeof rest, 0) > 0) {
    }
    ::close(fd);
  }

  int listener_ = -1;
  int port_ = 0;
  SSL_CTX* context_ = nullptr;
  std::thread thread_;
};

TEST(TlsClient, AHandshakeVerifiedAgainstTheRunsCaThenHttpOverIt) {
  const auto material = TlsMaterial::make(TlsKey::kEcdsaP256, {});
  const TlsClientContext client(material->files().ca);
  OneShotServer server(&material->files());
  HttpResponse response;
  std::string error;
  HttpConnection connection;
  ASSERT_TRUE(connection.connect("127.0.0.1", server.port(), &client, 5, error)) << error;
  ASSERT_NE(connection.tls(), nullptr);
  EXPECT_EQ(connection.tls()->version, "TLSv1.3");
  EXPECT_EQ(connection.tls()->alpn, "http/1.1");
  EXPECT_FALSE(connection.tls()->cipher.empty());
  EXPECT_NE(connection.tls()->text().find("TLSv1.3, TLS_"), std::string::npos) << connection.tls()->text();
  ASSERT_TRUE(connection.send(get_request("/"), 5, error)) << error;
  ASSERT_TRUE(connection.read_response(response, 5, error)) << error;
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "hello");
}

TEST(TlsClient, TlsOneTwoIsTakenAndSaidSo) {
  const auto material = TlsMaterial::make(TlsKey::kRsa2048, {});
  const TlsClientContext client(material->files().ca);
  OneShotServer server(&material->files(), /*tls12=*/true);
  HttpResponse response;
  std::string error;
  HttpConnection connection;
  ASSERT_TRUE(connection.connect("127.0.0.1", server.port(), &client, 5, error)) << error;
  EXPECT_EQ(connection.tls()->version, "TLSv1.2");
  ASSERT_TRUE(connection.send(get_request("/"), 5, error) &&
              connection.read_response(response, 5, error))
      << error;
  EXPECT_EQ(response.body, "hello");
}

TEST(TlsClient, ACertificateFromAnotherCaIsRefused) {
  const auto ours = TlsMaterial::make(TlsKey::kEcdsaP256, {});
  const auto theirs = TlsMaterial::make(TlsKey::kEcdsaP256, {});
  const TlsClientContext client(ours->files().ca);
  OneShotServer server(&theirs->files());
  HttpResponse response;
  std::string error;
  EXPECT_FALSE(fetch("127.0.0.1", server.port(), &client, "/", 5, response, error));
  EXPECT_EQ(error.rfind("the server's certificate did not verify against the run's CA: ", 0), 0u)
      << error;
}

TEST(TlsClient, APlainServerIsToldApart) {
  const auto material = TlsMaterial::make(TlsKey::kEcdsaP256, {});
  const TlsClientContext client(material->files().ca);
  OneShotServer server(nullptr);
  HttpResponse response;
  std::string error;
  EXPECT_FALSE(fetch("127.0.0.1", server.port(), &client, "/", 5, response, error));
  EXPECT_NE(error.find("did not answer with TLS"), std::string::npos) << error;
}

TEST(TlsClient, AMissingCaFileIsOneLine) {
  try {
    TlsClientContext client("/nonexistent/ca.pem");
    FAIL() << "read a CA file that does not exist";
  } catch (const TlsError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("TLS client: cannot read the CA certificate /nonexistent/ca.pem", 0), 0u)
        << error.what();
  }
}

}  // namespace
}  // namespace ringside::harness
