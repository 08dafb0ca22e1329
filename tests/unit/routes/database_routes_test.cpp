// The database routes over a scripted Database, through a real Connection on a socket pair: what
// each route answers for each outcome, answers that come inside the call (as SQLite's) or later
// (as PostgreSQL's) in any order, /updates' read-then-write, and clients that leave mid-query.
#include "routes/database_routes.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "server/connection.hpp"
#include "server/hello_routes.hpp"

namespace ringside::routes {
namespace {

using server::Connection;

enum class Op { kUser, kWorlds, kFortunes, kWrite };

struct Asked {
  Op op;
  db::Sink* sink;
  std::int64_t user_id = 0;
  std::vector<std::int32_t> ids;
  std::vector<db::WorldRow> rows;
};

// Keeps every operation until the test answers it, or answers at once when `immediate`.
class ScriptedDatabase final : public db::Database {
 public:
  void find_user(std::int64_t id, db::Sink& sink) override {
    asked.push_back({Op::kUser, &sink, id, {}, {}});
    if (immediate) answer_user(asked.size() - 1, true);
  }
  void read_worlds(std::span<const std::int32_t> ids, db::Sink& sink) override {
    asked.push_back({Op::kWorlds, &sink, 0, {ids.begin(), ids.end()}, {}});
    if (immediate) answer_worlds(asked.size() - 1);
  }
  void read_fortunes(db::Sink& sink) override {
    asked.push_back({Op::kFortunes, &sink, 0, {}, {}});
    if (immediate) answer_fortunes(asked.size() - 1, 2);
  }
  void write_worlds(std::span<const db::WorldRow> rows, db::Sink& sink) override {
    asked.push_back({Op::kWrite, &sink, 0, {}, {rows.begin(), rows.end()}});
    if (immediate) done(asked.size() - 1, db::Outcome::kOk);
  }

  void answer_user(std::size_t i, bool found) {
    const std::string name = "User " + std::to_string(asked[i].user_id);
    if (found) asked[i].sink->on_user({asked[i].user_id, name, "u@example.com", "2024-01-01T00:00:01Z"});
    done(i, db::Outcome::kOk);
  }
  // World row `id` has randomNumber id + 1.
  void answer_worlds(std::size_t i) {
    for (std::size_t k = 0; k < asked[i].ids.size(); ++k) {
      asked[i].sink->on_world(k, {asked[i].ids[k], asked[i].ids[k] + 1});
    }
    done(i, db::Outcome::kOk);
  }
  void answer_fortunes(std::size_t i, int rows) {
    for (int k = 1; k <= rows; ++k) {
      const std::string message = k == 1 ? "<b>bold</b> & \"quoted\"" : "fortune " + std::to_string(k);
      asked[i].sink->on_fortune({k, message});
    }
    done(i, db::Outcome::kOk);
  }
  void done(std::size_t i, db::Outcome outcome, std::string_view detail = {}) {
    asked[i].sink->on_done(outcome, detail);
  }

  bool immediate = false;
  std::vector<Asked> asked;
};

class DatabaseRoutesTest : public ::testing::Test {
 protected:
  DatabaseRoutesTest() {
    server::add_hello_routes(router);
    add_database_routes(router);
    auto scripted = std::make_unique<ScriptedDatabase>();
    database = scripted.get();
    worker = std::make_unique<DatabaseWorker>(std::move(scripted), 0);
    context.extension = worker.get();
    context.owner = &owner;
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    client = fds[1];
    connection.open(fds[0], context);
  }
  ~DatabaseRoutesTest() override {
    connection.close();
    worker.reset();
    if (client >= 0) ::close(client);
  }

  void send(std::string_view bytes) {
    ASSERT_EQ(::send(client, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  void get(std::string_view path) { send("GET " + std::string(path) + " HTTP/1.1\r\nHost: x\r\n\r\n"); }
  // A few loop turns: the server reads what was sent and writes what it has.
  void turns(int n = 5) {
    for (int i = 0; i < n; ++i) {
      context.loop.run_once(std::chrono::milliseconds(1));
      char chunk[65536];
      ssize_t got;
      while ((got = ::recv(client, chunk, sizeof chunk, 0)) > 0) {
        received.append(chunk, static_cast<std::size_t>(got));
      }
    }
  }
  struct Response {
    int status;
    std::string head;
    std::string body;
  };
  std::vector<Response> responses() const {
    std::vector<Response> out;
    std::size_t at = 0;
    while (true) {
      const std::size_t head_end = received.find("\r\n\r\n", at);
      if (head_end == std::string::npos) return out;
      const std::string head = received.substr(at, head_end - at);
      const std::size_t length_at = head.find("Content-Length: ");
      const std::size_t length = std::stoul(head.substr(length_at + 16));
      out.push_back({std::stoi(head.substr(9, 3)), head, received.substr(head_end + 4, length)});
      at = head_end + 4 + length;
    }
  }

  class Owner final : public server::ConnectionOwner {
   public:
    void release(Connection&) override { ++released; }
    int released = 0;
  };

  server::ServerConfig config;
  server::Router router;
  server::WorkerContext context{config, router};
  ScriptedDatabase* database = nullptr;
  std::unique_ptr<DatabaseWorker> worker;
  Owner owner;
  Connection connection;
  int client = -1;
  std::string received;
};

TEST_F(DatabaseRoutesTest, UserAnsweredInsideTheCallRepliesAtOnce) {
  database->immediate = true;
  get("/users/42");
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, 200);
  EXPECT_NE(answers[0].head.find("Content-Type: application/json"), std::string::npos);
  EXPECT_EQ(answers[0].body,
            R"({"id":42,"name":"User 42","email":"u@example.com","created_at":"2024-01-01T00:00:01Z"})");
  EXPECT_EQ(context.replies.in_use(), 0u) << "an answer inside the call needs no parking";
  EXPECT_EQ(worker->calls_in_use(), 0u);
}

TEST_F(DatabaseRoutesTest, UnknownUserIs404AndBadIdsAre400WithoutAQuery) {
  get("/users/7");
  turns();
  ASSERT_EQ(database->asked.size(), 1u);
  database->answer_user(0, false);
  for (const char* bad : {"/users/0", "/users/-5", "/users/x1", "/users/007",
                          "/users/99999999999999999999"}) {
    get(bad);
  }
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 6u);
  EXPECT_EQ(answers[0].status, 404);
  EXPECT_EQ(answers[0].body, "{\"error\":\"no user with id 7\"}\n");
  for (std::size_t i = 1; i < answers.size(); ++i) EXPECT_EQ(answers[i].status, 400) << i;
  EXPECT_EQ(database->asked.size(), 1u) << "a bad id never reaches the database";
}

TEST_F(DatabaseRoutesTest, LaterAnswersLeaveInRequestOrder) {
  get("/users/1");
  get("/users/2");
  get("/json");
  get("/users/3");
  turns();
  ASSERT_EQ(database->asked.size(), 3u);
  EXPECT_TRUE(responses().empty()) << "nothing may overtake the first parked request";
  database->answer_user(2, true);
  database->answer_user(1, true);
  turns();
  EXPECT_TRUE(responses().empty());
  database->answer_user(0, true);
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_NE(answers[0].body.find("\"id\":1,"), std::string::npos);
  EXPECT_NE(answers[1].body.find("\"id\":2,"), std::string::npos);
  EXPECT_EQ(answers[2].body, R"({"message":"Hello, World!"})");
  EXPECT_NE(answers[3].body.find("\"id\":3,"), std::string::npos);
  EXPECT_EQ(worker->calls_in_use(), 0u);
  EXPECT_EQ(context.replies.in_use(), 0u);
}

TEST_F(DatabaseRoutesTest, OutcomesMapToStatuses) {
  const std::pair<db::Outcome, int> cases[] = {{db::Outcome::kUnavailable, 503},
                                                {db::Outcome::kTimeout, 503},
                                                {db::Outcome::kBusy, 503},
                                                {db::Outcome::kFailed, 500}};
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    get("/db");
    turns();
    database->done(i, cases[i].first, "what \"went\" wrong");
  }
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), std::size(cases));
  for (std::size_t i = 0; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i].status, cases[i].second) << i;
    EXPECT_NE(answers[i].head.find("Content-Type: application/json"), std::string::npos);
    EXPECT_EQ(answers[i].head.find("Retry-After: 1") != std::string::npos, cases[i].second == 503);
    EXPECT_NE(answers[i].body.find(R"("detail":"what \"went\" wrong")"), std::string::npos)
        << answers[i].body;
  }
}

TEST_F(DatabaseRoutesTest, QueriesAnswerEveryRowInOrder) {
  get("/queries?queries=500");
  get("/queries?queries=abc");
  get("/db");
  turns();
  ASSERT_EQ(database->asked.size(), 3u);
  EXPECT_EQ(database->asked[0].ids.size(), 500u);
  EXPECT_EQ(database->asked[1].ids.size(), 1u);
  for (std::size_t i = 0; i < 3; ++i) database->answer_worlds(i);
  turns(10);
  auto answers = responses();
  ASSERT_EQ(answers.size(), 3u);
  std::string expected = "[";
  for (std::int32_t id : database->asked[0].ids) {
    if (expected.size() > 1) expected += ",";
    expected += R"({"id":)" + std::to_string(id) + R"(,"randomNumber":)" + std::to_string(id + 1) + "}";
  }
  expected += "]";
  EXPECT_EQ(answers[0].body, expected);
  EXPECT_EQ(answers[1].body.front(), '[');
  const std::int32_t id = database->asked[2].ids[0];
  EXPECT_EQ(answers[2].body,
            R"({"id":)" + std::to_string(id) + R"(,"randomNumber":)" + std::to_string(id + 1) + "}");
  for (const Asked& asked : database->asked) {
    for (std::int32_t world : asked.ids) EXPECT_TRUE(world >= 1 && world <= 10000) << world;
  }
}

TEST_F(DatabaseRoutesTest, MissingWorldRowsAre500) {
  get("/queries?queries=3");
  turns();
  database->asked[0].sink->on_world(0, {database->asked[0].ids[0], 5});
  database->done(0, db::Outcome::kOk);
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, 500);
}

TEST_F(DatabaseRoutesTest, UpdatesReadThenWriteNewNumbersSortedById) {
  get("/updates?queries=20");
  turns();
  ASSERT_EQ(database->asked.size(), 1u);
  const std::vector<std::int32_t> ids = database->asked[0].ids;
  ASSERT_EQ(ids.size(), 20u);
  std::vector<std::int32_t> distinct = ids;
  std::sort(distinct.begin(), distinct.end());
  EXPECT_EQ(std::adjacent_find(distinct.begin(), distinct.end()), distinct.end()) << "ids repeat";
  database->answer_worlds(0);
  turns();
  ASSERT_EQ(database->asked.size(), 2u);
  ASSERT_EQ(database->asked[1].op, Op::kWrite);
  const std::vector<db::WorldRow> rows = database->asked[1].rows;
  ASSERT_EQ(rows.size(), 20u);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end(),
                             [](const db::WorldRow& a, const db::WorldRow& b) { return a.id < b.id; }));
  for (const db::WorldRow& row : rows) {
    EXPECT_NE(row.random_number, row.id + 1) << "every row read gets a new number";
    EXPECT_TRUE(row.random_number >= 1 && row.random_number <= 10000);
  }
  EXPECT_TRUE(responses().empty()) << "no answer before the write is done";
  database->done(1, db::Outcome::kOk);
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, 200);
  // The answer lists the ids in the order read, with the numbers written.
  std::string expected = "[";
  for (std::int32_t id : ids) {
    auto row = std::find_if(rows.begin(), rows.end(), [id](const db::WorldRow& r) { return r.id == id; });
    if (expected.size() > 1) expected += ",";
    expected += R"({"id":)" + std::to_string(id) + R"(,"randomNumber":)" +
                std::to_string(row->random_number) + "}";
  }
  EXPECT_EQ(answers[0].body, expected + "]");
}

TEST_F(DatabaseRoutesTest, UpdatesWriteFailureIsAnError) {
  get("/updates?queries=2");
  turns();
  database->answer_worlds(0);
  database->done(1, db::Outcome::kBusy, "database is locked");
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, 503);
}

TEST_F(DatabaseRoutesTest, FortunesAddOneSortEscapeAndRefuseTooMany) {
  get("/fortunes");
  get("/fortunes");
  turns();
  database->answer_fortunes(0, 2);
  database->answer_fortunes(1, 65);
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].status, 200);
  EXPECT_NE(answers[0].head.find("Content-Type: text/html; charset=utf-8"), std::string::npos);
  EXPECT_EQ(answers[0].body,
            "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
            "<tr><th>id</th><th>message</th></tr>"
            "<tr><td>1</td><td>&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;</td></tr>"
            "<tr><td>0</td><td>Additional fortune added at request time.</td></tr>"
            "<tr><td>2</td><td>fortune 2</td></tr>"
            "</table></body></html>");
  EXPECT_EQ(answers[1].status, 500) << "65 rows do not fit a call's block";
}

TEST_F(DatabaseRoutesTest, ClientLeavingWhileParkedIsCleanedUpWhenTheAnswerComes) {
  get("/users/1");
  get("/queries?queries=10");
  turns();
  ASSERT_EQ(database->asked.size(), 2u);
  ::close(client);
  client = -1;
  turns();
  EXPECT_EQ(owner.released, 1) << "the connection closes at once";
  EXPECT_EQ(worker->calls_in_use(), 2u) << "its calls wait for their answers";
  database->answer_worlds(1);
  database->answer_user(0, true);
  EXPECT_EQ(worker->calls_in_use(), 0u);
  EXPECT_EQ(context.replies.in_use(), 0u);
  EXPECT_EQ(context.reply_blocks.in_use(), 0u);
  EXPECT_EQ(context.body_blocks.in_use(), 0u);
}

TEST_F(DatabaseRoutesTest, WithoutADatabaseTheRoutesSay503) {
  context.extension = nullptr;
  get("/users/1");
  turns();
  auto answers = responses();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, 503);
  EXPECT_TRUE(database->asked.empty());
}

}  // namespace
}  // namespace ringside::routes
