// TlsContext's session tickets: keys replaced every lifetime, the previous one still accepted,
// older ones refused (a full handshake), and every resumption renewed with a fresh ticket. Driven
// with OpenSSL directly: a client and a server SSL joined by a BIO pair, in memory; the client
// context collects every ticket it is given.
#include "core/tls_context.hpp"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <vector>

namespace ringside::core {
namespace {

std::vector<SSL_SESSION*> tickets;  // every session the test client was given, in order

int keep_ticket(SSL*, SSL_SESSION* session) {
  tickets.push_back(session);
  return 1;  // ours now
}

struct CollectingClient {
  CollectingClient() : ctx(SSL_CTX_new(TLS_client_method())) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, keep_ticket);
  }
  ~CollectingClient() {
    for (SSL_SESSION* session : tickets) SSL_SESSION_free(session);
    tickets.clear();
    SSL_CTX_free(ctx);
  }
  SSL_CTX* ctx;
};

// One connection offering `session` (may be nullptr); whether it resumed.
bool connect_once(SSL_CTX* client, TlsContext& server, SSL_SESSION* session) {
  SSL* c = SSL_new(client);
  SSL* s = SSL_new(server.native());
  BIO* c_bio = nullptr;
  BIO* s_bio = nullptr;
  EXPECT_EQ(BIO_new_bio_pair(&c_bio, 0, &s_bio, 0), 1);
  SSL_set_bio(c, c_bio, c_bio);
  SSL_set_bio(s, s_bio, s_bio);
  SSL_set_connect_state(c);
  SSL_set_accept_state(s);
  if (session != nullptr) SSL_set_session(c, session);
  bool client_done = false;
  bool server_done = false;
  for (int turn = 0; turn < 100 && !(client_done && server_done); ++turn) {
    if (!client_done) client_done = SSL_do_handshake(c) == 1;
    if (!server_done) server_done = SSL_do_handshake(s) == 1;
  }
  EXPECT_TRUE(client_done && server_done);
  EXPECT_EQ(SSL_write(s, "x", 1), 1);  // the tickets travel before it
  char byte = 0;
  EXPECT_EQ(SSL_read(c, &byte, 1), 1);
  const bool resumed = SSL_session_reused(c) == 1;
  SSL_set_shutdown(c, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);  // a clean end
  SSL_set_shutdown(s, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  SSL_free(c);
  SSL_free(s);
  return resumed;
}

TEST(TlsContextTicketsTest, TheCurrentAndPreviousKeysResumeOlderOnesDoNot) {
  TlsServerOptions options;
  options.self_signed = true;
  options.ticket_key_lifetime = Duration::zero();  // every ticket under a fresh key
  std::string error;
  auto server = TlsContext::make_server(options, error);
  ASSERT_NE(server, nullptr) << error;
  SSL_CTX_set_num_tickets(server->native(), 1);  // one ticket, so one new key, per connection
  CollectingClient client;

  EXPECT_FALSE(connect_once(client.ctx, *server, nullptr));  // ticket 0: key 1
  EXPECT_FALSE(connect_once(client.ctx, *server, nullptr));  // ticket 1: key 2 (key 1 previous)
  ASSERT_EQ(tickets.size(), 2u);
  EXPECT_EQ(server->ticket_keys_made(), 3u);
  EXPECT_TRUE(connect_once(client.ctx, *server, tickets[0])) << "the previous key resumes";
  ASSERT_EQ(tickets.size(), 3u) << "a resumption is renewed with a fresh ticket (key 3)";
  EXPECT_FALSE(connect_once(client.ctx, *server, nullptr));  // ticket 3: key 4
  EXPECT_FALSE(connect_once(client.ctx, *server, tickets[1])) << "key 2 is two keys old";
  ASSERT_EQ(tickets.size(), 5u);  // its full handshake's ticket: key 5
  EXPECT_TRUE(connect_once(client.ctx, *server, tickets[4])) << "the current key resumes";
  EXPECT_EQ(server->ticket_keys_made(), 7u);
}

TEST(TlsContextTicketsTest, AClientThatResumesKeepsResumingWithTheRenewedTickets) {
  TlsServerOptions options;
  options.self_signed = true;
  std::string error;
  auto server = TlsContext::make_server(options, error);
  ASSERT_NE(server, nullptr) << error;
  auto client = TlsContext::make_client(TlsClientOptions{}, error);
  ASSERT_NE(client, nullptr) << error;
  EXPECT_FALSE(connect_once(client->native(), *server, nullptr));
  for (int i = 0; i < 5; ++i) {
    ASSERT_NE(client->last_session(), nullptr);
    EXPECT_TRUE(connect_once(client->native(), *server, client->last_session())) << i;
  }
}

}  // namespace
}  // namespace ringside::core
