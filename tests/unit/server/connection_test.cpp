// A server Connection driven through a socket pair: the whole state machine, with no listener and
// no threads, so each case can hold its client exactly where the defect needs it.
#include "server/connection.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "server/hello_routes.hpp"

namespace ringside::server {
namespace {

constexpr auto kTurn = std::chrono::milliseconds(10);
constexpr int kMaxTurns = 500;  // 5 s at most per wait: a bound, not a pace

Reply huge_reply(Exchange&) {
  static const std::string body(kMaxReplyBody + 1, 'x');
  return {http::Status::kOk, "text/plain", body, {}};
}

// Parked requests of the test routes, with the parameter each was asked with.
struct Parked {
  PendingReply* pending;
  std::string name;
};
std::vector<Parked> g_parked;

Reply park_it(Exchange& exchange) {
  g_parked.push_back({&exchange.defer(), std::string(exchange.param(0))});
  return Reply::later();
}

Reply answer_inside_handler(Exchange& exchange) {
  PendingReply& pending = exchange.defer();
  http::OutBuffer& body = pending.body();
  body.append("sync ");
  body.append(exchange.param(0));
  pending.respond({http::Status::kOk, "text/plain", body.view(), {}});
  return Reply::later();
}

void answer(const Parked& parked) {
  http::OutBuffer& body = parked.pending->body();
  body.append("late ");
  body.append(parked.name);
  parked.pending->respond({http::Status::kOk, "text/plain", body.view(), {}});
}

class Owner final : public ConnectionOwner {
 public:
  void release(Connection&) override { ++released; }
  int released = 0;
};

class ConnectionTest : public ::testing::Test {
 protected:
  ConnectionTest() {
    add_hello_routes(router);
    router.add("/huge", kGetOrHead, huge_reply);
    router.add("/later/:name", kGetOrHead, park_it);
    router.add("/sync/:name", kGetOrHead, answer_inside_handler);
    g_parked.clear();
    context.owner = &owner;
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    client = fds[1];
    connection.open(fds[0], context);
  }
  ~ConnectionTest() override {
    connection.close();
    if (client >= 0) ::close(client);
  }

  void send(std::string_view bytes) {
    ASSERT_EQ(::send(client, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Reads what is there; true when the server closed its side.
  bool read_some() {
    char chunk[65536];
    while (true) {
      ssize_t n = ::recv(client, chunk, sizeof chunk, 0);
      if (n == 0) return true;
      if (n < 0) return false;
      received.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // Runs the server's loop until the server closed its side (true) or the bound ran out.
  bool run_until_eof() {
    for (int i = 0; i < kMaxTurns; ++i) {
      context.loop.run_once(kTurn);
      if (read_some()) return true;
    }
    return false;
  }
  void turns(int n) {
    for (int i = 0; i < n; ++i) {
      context.loop.run_once(std::chrono::milliseconds(0));
      read_some();
    }
  }
  // The bodies of the responses received, in order ("Hello World!" for /).
  std::vector<std::string> bodies() const {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (true) {
      const std::size_t length_at = received.find("Content-Length: ", at);
      if (length_at == std::string::npos) return out;
      const std::size_t length = std::stoul(received.substr(length_at + 16));
      const std::size_t body_at = received.find("\r\n\r\n", length_at) + 4;
      out.push_back(received.substr(body_at, length));
      at = body_at + length;
    }
  }
  std::size_t count(std::string_view needle) const {
    std::size_t n = 0;
    for (auto at = received.find(needle); at != std::string::npos; at = received.find(needle, at + 1)) ++n;
    return n;
  }

  ServerConfig config;
  Router router;
  WorkerContext context{config, router};
  Owner owner;
  Connection connection;
  int client = -1;
  std::string received;
};

TEST_F(ConnectionTest, RequestThenFinGetsItsResponseAndAClose) {
  send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  ::shutdown(client, SHUT_WR);
  ASSERT_TRUE(run_until_eof()) << "the client's FIN went unnoticed";
  EXPECT_EQ(count("HTTP/1.1 200 OK"), 1u);
  EXPECT_EQ(owner.released, 1);
}

TEST_F(ConnectionTest, PartialHeadThenFinClosesWithoutAnswer) {
  send("GET / HTTP/1.1\r\nHo");
  ::shutdown(client, SHUT_WR);
  ASSERT_TRUE(run_until_eof()) << "a half-sent head followed by FIN must not wait for the timer";
  EXPECT_TRUE(received.empty());
  EXPECT_EQ(owner.released, 1);
  EXPECT_EQ(context.input_blocks.in_use(), 0u);
}

TEST_F(ConnectionTest, SlowReaderWithADeepPipelineGetsEveryResponse) {
  int small = 4096;
  setsockopt(client, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  std::string burst;
  constexpr int kRequests = 1000;
  for (int i = 0; i < kRequests; ++i) burst += "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  // The burst is larger than the socket pair's buffer: feed it as the server takes it.
  std::size_t offset = 0;
  for (int i = 0; i < kMaxTurns * 10 && count("HTTP/1.1 200 OK") < kRequests; ++i) {
    if (offset < burst.size()) {
      ssize_t n = ::send(client, burst.data() + offset, burst.size() - offset, MSG_NOSIGNAL);
      if (n > 0) offset += static_cast<std::size_t>(n);
    }
    context.loop.run_once(std::chrono::milliseconds(1));
    // Read only every few turns, so the server's output stalls again and again.
    if (i % 4 == 3) read_some();
  }
  EXPECT_EQ(offset, burst.size());
  EXPECT_EQ(count("HTTP/1.1 200 OK"), static_cast<std::size_t>(kRequests));
  EXPECT_EQ(owner.released, 0);
}

TEST_F(ConnectionTest, AReplyTooLargeForItsRoomBecomesA500NotSilence) {
  send("GET /huge HTTP/1.1\r\nHost: x\r\n\r\n");
  for (int i = 0; i < kMaxTurns && received.find("\r\n\r\n") == std::string::npos; ++i) {
    context.loop.run_once(kTurn);
    read_some();
  }
  EXPECT_EQ(received.rfind("HTTP/1.1 500 ", 0), 0u) << received.substr(0, 200);
}

TEST_F(ConnectionTest, ErrorResponseThenLingeringCloseEndsOnClientFin) {
  send("GET / HTTP/1.1\r\n\r\n");  // no Host: 400 and close
  for (int i = 0; i < kMaxTurns && received.find("\r\n\r\n") == std::string::npos; ++i) {
    context.loop.run_once(kTurn);
    read_some();
  }
  EXPECT_EQ(received.rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(owner.released, 0) << "lingering: the server waits for the client's FIN";
  ::shutdown(client, SHUT_WR);
  for (int i = 0; i < kMaxTurns && owner.released == 0; ++i) context.loop.run_once(kTurn);
  EXPECT_EQ(owner.released, 1);
}

TEST_F(ConnectionTest, HeadTrickledByteByByteIsAnsweredOnce) {
  // Each byte is a separate read: the partial head grows in its block, and the parser resumes
  // its scan where the previous read left it.
  const std::string head = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(8000, 'a') +
                           "\r\n\r\nGET /json HTTP/1.1\r\nHost: x\r\n\r\n";
  for (char byte : head) {
    send(std::string_view(&byte, 1));
    context.loop.run_once(std::chrono::milliseconds(0));
  }
  for (int i = 0; i < kMaxTurns && count("HTTP/1.1 200 OK") < 2; ++i) {
    context.loop.run_once(kTurn);
    read_some();
  }
  EXPECT_EQ(count("HTTP/1.1 200 OK"), 2u);
  EXPECT_NE(received.find("Hello World!"), std::string::npos);
  EXPECT_NE(received.find("{\"message\":\"Hello, World!\"}"), std::string::npos);
  EXPECT_EQ(context.input_blocks.in_use(), 0u);
}

TEST_F(ConnectionTest, AParkedRequestIsAnsweredWhenItsAnswerComes) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\n\r\n");
  turns(5);
  ASSERT_EQ(g_parked.size(), 1u);
  EXPECT_EQ(g_parked[0].name, "a");
  EXPECT_TRUE(received.empty());
  EXPECT_FALSE(connection.is_idle());
  answer(g_parked[0]);
  turns(5);
  EXPECT_EQ(bodies(), std::vector<std::string>{"late a"});
  EXPECT_TRUE(connection.is_idle());
  EXPECT_EQ(context.replies.in_use(), 0u);
  EXPECT_EQ(context.reply_blocks.in_use(), 0u);
  EXPECT_EQ(context.body_blocks.in_use(), 0u);
}

TEST_F(ConnectionTest, PipelinedResponsesKeepRequestOrderWhenALaterOneFinishesFirst) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\n\r\n"
       "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
       "GET /sync/b HTTP/1.1\r\nHost: x\r\n\r\n"
       "GET /later/c HTTP/1.1\r\nHost: x\r\n\r\n");
  turns(5);
  ASSERT_EQ(g_parked.size(), 2u);
  answer(g_parked[1]);  // c first
  turns(5);
  EXPECT_TRUE(received.empty()) << "nothing may overtake the parked first request";
  answer(g_parked[0]);
  turns(5);
  EXPECT_EQ(bodies(), (std::vector<std::string>{"late a", "Hello World!", "sync b", "late c"}));
  EXPECT_EQ(context.replies.in_use(), 0u);
  EXPECT_EQ(owner.released, 0);
}

TEST_F(ConnectionTest, AClientGoneWhileParkedIsCleanedUpWhenTheAnswerArrives) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
  turns(5);
  ASSERT_EQ(g_parked.size(), 1u);
  ::close(client);
  client = -1;
  for (int i = 0; i < kMaxTurns && owner.released == 0; ++i) context.loop.run_once(kTurn);
  ASSERT_EQ(owner.released, 1);
  EXPECT_TRUE(g_parked[0].pending->aborted());
  answer(g_parked[0]);  // the database answers after all: only the PendingReply goes back
  EXPECT_EQ(context.replies.in_use(), 0u);
  EXPECT_EQ(context.reply_blocks.in_use(), 0u);
  EXPECT_EQ(context.body_blocks.in_use(), 0u);
}

TEST_F(ConnectionTest, AFullQueueStopsReadingUntilAnswersCome) {
  std::string burst;
  constexpr int kRequests = 40;
  for (int i = 0; i < kRequests; ++i) {
    burst += "GET /later/" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  }
  send(burst);
  std::vector<std::string> expected;
  std::size_t answered = 0;
  for (int round = 0; round < 10 && answered < kRequests; ++round) {
    turns(5);
    ASSERT_LE(g_parked.size() - answered, 16u) << "at most kMaxQueued parked per connection";
    while (answered < g_parked.size()) {
      expected.push_back("late " + std::to_string(answered));
      answer(g_parked[answered++]);
    }
  }
  turns(5);
  EXPECT_EQ(answered, static_cast<std::size_t>(kRequests));
  EXPECT_EQ(bodies(), expected);
}

TEST_F(ConnectionTest, AParkedRequestThatAsksToCloseEndsTheConnectionAfterItsAnswer) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
       "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  turns(5);
  ASSERT_EQ(g_parked.size(), 1u);
  answer(g_parked[0]);
  ASSERT_TRUE(run_until_eof());
  EXPECT_EQ(bodies(), std::vector<std::string>{"late a"});
  EXPECT_NE(received.find("Connection: close"), std::string::npos);
}

TEST_F(ConnectionTest, NothingFollowsAClosingAnswerWhenADrainBeganWhileParked) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\n\r\nGET /later/b HTTP/1.1\r\nHost: x\r\n\r\n");
  turns(5);
  ASSERT_EQ(g_parked.size(), 2u);
  context.draining = true;  // both answers will say "Connection: close"
  answer(g_parked[1]);
  answer(g_parked[0]);
  ASSERT_TRUE(run_until_eof());
  EXPECT_EQ(bodies(), std::vector<std::string>{"late a"}) << "bytes after a closing response";
  ::shutdown(client, SHUT_WR);  // ends the lingering close; the queue goes with the connection
  for (int i = 0; i < kMaxTurns && owner.released == 0; ++i) context.loop.run_once(kTurn);
  ASSERT_EQ(owner.released, 1);
  EXPECT_EQ(context.replies.in_use(), 0u);
  EXPECT_EQ(context.reply_blocks.in_use(), 0u);
}

TEST_F(ConnectionTest, AMalformedRequestBehindAParkedOneIsAnsweredAfterIt) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\n\r\nnot a request\r\n\r\n");
  turns(5);
  ASSERT_EQ(g_parked.size(), 1u);
  EXPECT_TRUE(received.empty()) << "the 400 overtook the parked request's answer";
  answer(g_parked[0]);
  ASSERT_TRUE(run_until_eof());
  const std::vector<std::string> got = bodies();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "late a");
  EXPECT_EQ(received.find("HTTP/1.1 400 "), received.find("late a") + 6);
}

// A parked route may answer before the request's body has all arrived (RFC 9110 allows answering
// before the body is read); the rest of the body is still read and discarded, so the next request
// is framed where it begins.
TEST_F(ConnectionTest, AnAnswerBeforeTheBodyEndsStillReadsTheBodyThenTheNextRequest) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456");
  turns(5);
  ASSERT_EQ(g_parked.size(), 1u);
  answer(g_parked[0]);
  turns(5);
  EXPECT_EQ(bodies(), std::vector<std::string>{"late a"});
  send("789GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  turns(5);
  EXPECT_EQ(bodies(), (std::vector<std::string>{"late a", "Hello World!"}));
}

// If that body then stalls, the connection ends without a 408: the request had its answer, and a
// second response would answer nothing the client asked (found by the connection fuzz target).
TEST_F(ConnectionTest, ABodyThatStallsAfterItsRequestWasAnsweredEndsWithoutASecondResponse) {
  send("GET /later/a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456");
  turns(5);
  ASSERT_EQ(g_parked.size(), 1u);
  answer(g_parked[0]);
  turns(5);
  ASSERT_EQ(bodies(), std::vector<std::string>{"late a"});
  int fired = 0;
  context.header_timers.expire(context.loop.now() + std::chrono::hours(1), [&](core::TimerNode& node) {
    ++fired;
    static_cast<Connection&>(node).on_timeout();
  });
  ASSERT_EQ(fired, 1) << "the body's clock was not running";
  ::shutdown(client, SHUT_WR);
  ASSERT_TRUE(run_until_eof());
  EXPECT_EQ(count("HTTP/1.1 "), 1u) << received;
}

}  // namespace
}  // namespace ringside::server
