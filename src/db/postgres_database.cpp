#include "db/postgres_database.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/free_list_pool.hpp"
#include "core/intrusive_queue.hpp"
#include "db/connection.hpp"

namespace ringside::db {
namespace {

using core::Duration;
using core::TimePoint;
using namespace std::chrono_literals;

constexpr Duration kFirstBackoff = 50ms;
constexpr Duration kMaxBackoff = 1s;
// A query aborted because an earlier one in its pipeline failed never ran: it is sent again, up
// to this many times.
constexpr std::uint8_t kMaxRetries = 3;
// Operations in flight on a connection before the next ones go to another (pick_ready_link).
constexpr std::size_t kSpillDepth = 32;

constexpr const char* kUserStatement = "u";
constexpr const char* kWorldStatement = "w";
constexpr const char* kFortuneStatement = "f";
constexpr const char* kUpdateStatement = "x";

struct Statement {
  const char* name;
  const char* sql;
};
constexpr std::array<Statement, 4> kStatements = {{
    {kUserStatement,
     "SELECT id, name, email, "
     "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
     "FROM users WHERE id = $1"},
    {kWorldStatement, "SELECT id, randomnumber FROM world WHERE id = $1"},
    {kFortuneStatement, "SELECT id, message FROM fortune"},
    // One statement for the whole batch; rows come sorted by id, so concurrent writers lock rows
    // in the same order.
    {kUpdateStatement,
     "UPDATE world SET randomnumber = u.r "
     "FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id"},
}};

enum class OpKind : std::uint8_t { kPrepare, kUser, kWorlds, kFortunes, kWrite };

// One operation of a Sink (or a connection's own statement preparation), from submission to
// on_done. Pooled; linked into exactly one queue at a time.
struct Operation {
  OpKind kind = OpKind::kUser;
  Sink* sink = nullptr;
  std::int64_t user_id = 0;
  std::span<const std::int32_t> ids;
  std::span<const WorldRow> rows;
  std::uint32_t queries = 0;    // sent for this operation
  std::uint32_t completed = 0;  // whose results have ended
  bool got_result = false;      // the current query gave its result; the next null ends it
  bool failed = false;
  bool aborted = false;
  std::uint8_t retries = 0;
  TimePoint deadline{};
  Operation* next = nullptr;
  std::uint8_t detail_len = 0;
  char detail[160] = {};

  void set_detail(std::string_view text) {
    text = text.substr(0, text.find('\n'));
    detail_len = static_cast<std::uint8_t>(std::min(text.size(), sizeof detail));
    if (detail_len > 0) std::memcpy(detail, text.data(), detail_len);
  }
  [[nodiscard]] std::string_view detail_view() const { return {detail, detail_len}; }
};

using OpQueue = core::IntrusiveQueue<Operation, &Operation::next>;

bool parse_int(const char* text, std::int64_t& value) {
  const char* end = text + std::strlen(text);
  return std::from_chars(text, end, value).ec == std::errc();
}

class PostgresDatabase;

// One libpq connection, non-blocking, in pipeline mode, watched by the worker's loop.
class Link final : public core::IoHandler {
 public:
  enum class State : std::uint8_t { kDown, kConnecting, kReady };

  Link(PostgresDatabase& owner, core::EventLoop& loop) : owner_(owner), loop_(loop) {}
  ~Link() { close(); }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  void on_io(core::IoEvents events) override;

  // Drops the connection (its operations must have been answered already).
  void close();
  // Watches libpq's current socket for `events` (libpq may change sockets while connecting).
  void watch(core::IoEvents events);

  PostgresDatabase& owner_;
  core::EventLoop& loop_;
  PGconn* conn = nullptr;
  int fd = -1;
  core::IoEvents watched = 0;
  State state = State::kDown;
  OpQueue in_flight;
  bool unsynced = false;       // queries sent since the last Sync
  bool prepare_failed = false;
  bool lost = false;           // the server ended the session: fail everything, reconnect
  TimePoint retry_at{};        // kDown: when to connect again
  TimePoint connect_deadline{};
  Duration backoff = kFirstBackoff;
};

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(std::string conninfo, unsigned pool, double timeout_s, core::EventLoop& loop)
      : conninfo_(std::move(conninfo)),
        timeout_(core::seconds_to_duration(timeout_s)),
        loop_(loop) {
    links_.reserve(pool);
    for (unsigned i = 0; i < pool; ++i) links_.push_back(std::make_unique<Link>(*this, loop_));
    loop_.refresh_now();
    for (auto& link : links_) connect(*link);
  }

  ~PostgresDatabase() override {
    // Every operation still waiting hears that it will not be answered, while its sink (and
    // whatever pools it comes from) still exists.
    for (auto& link : links_) fail_all(*link, Outcome::kUnavailable, "the server is stopping");
    fail_waiting(Outcome::kUnavailable, "the server is stopping");
  }

  void find_user(std::int64_t id, Sink& sink) override {
    // users.id is an integer: a larger id cannot exist (and would fail the query's cast).
    if (id > std::numeric_limits<std::int32_t>::max()) {
      sink.on_done(Outcome::kOk, {});
      return;
    }
    Operation& op = acquire(OpKind::kUser, sink);
    op.user_id = id;
    submit(op);
  }

  void read_worlds(std::span<const std::int32_t> ids, Sink& sink) override {
    Operation& op = acquire(OpKind::kWorlds, sink);
    op.ids = ids.first(std::min(ids.size(), kMaxWorldIds));
    submit(op);
  }

  void read_fortunes(Sink& sink) override { submit(acquire(OpKind::kFortunes, sink)); }

  void write_worlds(std::span<const WorldRow> rows, Sink& sink) override {
    Operation& op = acquire(OpKind::kWrite, sink);
    op.rows = rows.first(std::min(rows.size(), kMaxWorldIds));
    submit(op);
  }

  void after_events() override {
    for (auto& link : links_) {
      if (link->state == Link::State::kReady && link->unsynced) sync(*link);
    }
  }

  [[nodiscard]] TimePoint next_deadline() const override {
    TimePoint next = TimePoint::max();
    for (const auto& link : links_) {
      switch (link->state) {
        case Link::State::kDown: next = std::min(next, link->retry_at); break;
        case Link::State::kConnecting: next = std::min(next, link->connect_deadline); break;
        case Link::State::kReady:
          if (!link->in_flight.empty()) next = std::min(next, link->in_flight.front()->deadline);
          break;
      }
    }
    if (!waiting_.empty()) next = std::min(next, waiting_.front()->deadline);
    return next;
  }

  void on_timer(TimePoint now) override {
    for (auto& link_ptr : links_) {
      Link& link = *link_ptr;
      switch (link.state) {
        case Link::State::kDown:
          if (now >= link.retry_at) connect(link);
          break;
        case Link::State::kConnecting:
          if (now >= link.connect_deadline) {
            fail_link(link, Outcome::kUnavailable, "connecting to the database timed out");
          }
          break;
        case Link::State::kReady:
          // Answers come in order, so the oldest operation is at the head. One unanswered past
          // the timeout means the connection (or the database) is stuck: start over.
          if (!link.in_flight.empty() && now >= link.in_flight.front()->deadline) {
            fail_link(link, Outcome::kTimeout, timeout_message());
          }
          break;
      }
    }
    while (!waiting_.empty() && now >= waiting_.front()->deadline) {
      finish(*waiting_.pop(), Outcome::kTimeout, timeout_message());
    }
  }

  // From Link::on_io.
  void on_link_io(Link& link, core::IoEvents events);

 private:
  Operation& acquire(OpKind kind, Sink& sink) { return acquire(kind, &sink); }
  Operation& acquire(OpKind kind, Sink* sink) {
    Operation& op = operations_.acquire();
    op = Operation{};
    op.kind = kind;
    op.sink = sink;
    op.deadline = loop_.now() + timeout_;
    return op;
  }

  void release(Operation& op) {
    op.sink = nullptr;
    operations_.release(op);
  }

  void finish(Operation& op, Outcome outcome, std::string_view detail) {
    Sink* sink = op.sink;
    // Released first: the sink may start its next operation from on_done (an update after its
    // reads), and the detail is copied before the operation is reused.
    std::array<char, sizeof op.detail> text;
    const std::size_t length = std::min(detail.size(), text.size());
    if (length > 0) std::memcpy(text.data(), detail.data(), length);  // an empty view may be null
    release(op);
    if (sink != nullptr) sink->on_done(outcome, {text.data(), length});
  }

  std::string_view timeout_message() {
    timeout_text_ = "no answer from the database within " +
                    std::to_string(std::chrono::duration<double>(timeout_).count()) + "s";
    return timeout_text_;
  }

  // Few connections with deep pipelines make each query cheaper for PostgreSQL (and wake fewer
  // of its backends): the first ready connection takes operations until kSpillDepth are in
  // flight on it; only then do they spill to the least busy one.
  Link* pick_ready_link() {
    Link* best = nullptr;
    for (auto& link : links_) {
      if (link->state != Link::State::kReady) continue;
      if (link->in_flight.size() < kSpillDepth) return link.get();
      if (best == nullptr || link->in_flight.size() < best->in_flight.size()) best = link.get();
    }
    return best;
  }

  [[nodiscard]] bool any_connecting() const {
    return std::any_of(links_.begin(), links_.end(), [](const auto& link) {
      return link->state == Link::State::kConnecting;
    });
  }

  void submit(Operation& op) {
    if (Link* link = pick_ready_link()) {
      send(*link, op);
    } else if (any_connecting()) {
      waiting_.push(op);  // until a connection is ready, or fails, or the deadline
    } else {
      finish(op, Outcome::kUnavailable,
             last_error_.empty() ? std::string_view("not connected to the database") : last_error_);
    }
  }

  void send(Link& link, Operation& op);
  void sync(Link& link);
  void flush(Link& link);
  void connect(Link& link);
  void poll_connect(Link& link);
  void on_connected(Link& link);
  void read_results(Link& link);
  void handle_result(Link& link, Operation& op, PGresult* result);
  void complete(Link& link, Operation& op);
  void fail_link(Link& link, Outcome outcome, std::string_view detail);
  void fail_all(Link& link, Outcome outcome, std::string_view detail);
  void fail_waiting(Outcome outcome, std::string_view detail) {
    std::string text(detail);
    while (Operation* op = waiting_.pop()) finish(*op, outcome, text);
  }

  std::string conninfo_;
  Duration timeout_;
  core::EventLoop& loop_;
  std::vector<std::unique_ptr<Link>> links_;
  core::FreeListPool<Operation, &Operation::next> operations_;
  OpQueue waiting_;
  std::string last_error_;
  std::string timeout_text_;
  // Text parameters of the batched update: "{1,2,3}" and "{7,8,9}".
  std::array<char, kMaxWorldIds * 7 + 8> update_ids_;
  std::array<char, kMaxWorldIds * 7 + 8> update_numbers_;
};

void Link::on_io(core::IoEvents events) { owner_.on_link_io(*this, events); }

void Link::watch(core::IoEvents events) {
  const int socket = PQsocket(conn);
  if (socket != fd) {
    // libpq closed the old socket (which also left epoll) or is moving to another address.
    if (fd >= 0) loop_.unwatch(fd);
    fd = socket;
    watched = 0;
  }
  if (fd < 0 || events == watched) return;
  // A socket libpq closed and reopened under the same number is no longer registered: add it.
  if (!loop_.modify(fd, events, this) && !loop_.watch(fd, events, this)) return;
  watched = events;
}

void Link::close() {
  if (fd >= 0) loop_.unwatch(fd);
  if (conn != nullptr) PQfinish(conn);
  conn = nullptr;
  fd = -1;
  watched = 0;
  unsynced = false;
  prepare_failed = false;
  lost = false;
  state = State::kDown;
}

void PostgresDatabase::connect(Link& link) {
  link.close();
  link.conn = PQconnectStart(conninfo_.c_str());
  if (link.conn == nullptr || PQstatus(link.conn) == CONNECTION_BAD) {
    const std::string message = link.conn != nullptr ? first_line(PQerrorMessage(link.conn))
                                                     : std::string("out of memory");
    fail_link(link, Outcome::kUnavailable, "cannot connect to the database: " + message);
    return;
  }
  link.state = Link::State::kConnecting;
  link.connect_deadline = loop_.now() + timeout_;
  // libpq's rule: after PQconnectStart, wait until the socket is writable, then poll.
  link.watch(core::kWritable);
}

void PostgresDatabase::poll_connect(Link& link) {
  switch (PQconnectPoll(link.conn)) {
    case PGRES_POLLING_READING: link.watch(core::kReadable); break;
    case PGRES_POLLING_WRITING: link.watch(core::kWritable); break;
    case PGRES_POLLING_OK: on_connected(link); break;
    default:
      fail_link(link, Outcome::kUnavailable,
                "cannot connect to the database: " + first_line(PQerrorMessage(link.conn)));
      break;
  }
}

void PostgresDatabase::on_connected(Link& link) {
  if (PQsetnonblocking(link.conn, 1) != 0 || PQenterPipelineMode(link.conn) != 1) {
    fail_link(link, Outcome::kUnavailable,
              "cannot use the database connection: " + first_line(PQerrorMessage(link.conn)));
    return;
  }
  link.state = Link::State::kReady;
  link.watch(core::kReadable);
  // The statements are prepared in the connection's first pipeline; queries queue behind them.
  for (const Statement& statement : kStatements) {
    Operation& op = acquire(OpKind::kPrepare, nullptr);
    if (PQsendPrepare(link.conn, statement.name, statement.sql, 0, nullptr) != 1) {
      release(op);
      fail_link(link, Outcome::kUnavailable,
                "cannot prepare statements: " + first_line(PQerrorMessage(link.conn)));
      return;
    }
    op.queries = 1;
    link.in_flight.push(op);
  }
  link.unsynced = true;
  sync(link);
  if (link.state != Link::State::kReady) return;
  link.backoff = kFirstBackoff;
  // Requests that waited for a connection go out now, spread over the ready ones.
  while (Operation* op = waiting_.pop()) submit(*op);
}

void PostgresDatabase::send(Link& link, Operation& op) {
  PGconn* conn = link.conn;
  bool sent = true;
  switch (op.kind) {
    case OpKind::kUser: {
      std::array<char, 24> id;
      *std::to_chars(id.data(), id.data() + id.size() - 1, op.user_id).ptr = '\0';
      const char* values[] = {id.data()};
      sent = PQsendQueryPrepared(conn, kUserStatement, 1, values, nullptr, nullptr, 0) == 1;
      op.queries = 1;
      break;
    }
    case OpKind::kWorlds: {
      // TechEmpower's rule: one query per row.
      op.queries = 0;
      for (std::int32_t world_id : op.ids) {
        std::array<char, 16> id;
        *std::to_chars(id.data(), id.data() + id.size() - 1, world_id).ptr = '\0';
        const char* values[] = {id.data()};
        if (PQsendQueryPrepared(conn, kWorldStatement, 1, values, nullptr, nullptr, 0) != 1) {
          sent = false;
          break;
        }
        ++op.queries;
      }
      break;
    }
    case OpKind::kFortunes:
      sent = PQsendQueryPrepared(conn, kFortuneStatement, 0, nullptr, nullptr, nullptr, 0) == 1;
      op.queries = 1;
      break;
    case OpKind::kWrite: {
      char* ids = update_ids_.data();
      char* numbers = update_numbers_.data();
      *ids++ = '{';
      *numbers++ = '{';
      for (std::size_t i = 0; i < op.rows.size(); ++i) {
        if (i > 0) {
          *ids++ = ',';
          *numbers++ = ',';
        }
        ids = std::to_chars(ids, update_ids_.data() + update_ids_.size(), op.rows[i].id).ptr;
        numbers = std::to_chars(numbers, update_numbers_.data() + update_numbers_.size(),
                                op.rows[i].random_number).ptr;
      }
      *ids++ = '}';
      *numbers++ = '}';
      *ids = *numbers = '\0';
      const char* values[] = {update_ids_.data(), update_numbers_.data()};
      // The update is its own implicit transaction: a Sync before it ends the reads queued so
      // far, one after it commits it, so its row locks are held for this statement alone.
      if (link.unsynced) sync(link);
      if (link.state != Link::State::kReady) {
        submit(op);
        return;
      }
      sent = PQsendQueryPrepared(conn, kUpdateStatement, 2, values, nullptr, nullptr, 0) == 1;
      op.queries = 1;
      break;
    }
    case OpKind::kPrepare:
      break;
  }
  if (op.queries > 0) {
    link.in_flight.push(op);
    link.unsynced = true;
  }
  if (!sent) {
    const std::string message = first_line(PQerrorMessage(conn));
    if (op.queries == 0) finish(op, Outcome::kUnavailable, message);
    fail_link(link, Outcome::kUnavailable, "lost the database connection: " + message);
    return;
  }
  if (op.kind == OpKind::kWrite) sync(link);
}

// Ends the pipeline gathered so far. libpq 15's PQpipelineSync also flushes: one write carries
// every query of the turn.
void PostgresDatabase::sync(Link& link) {
  link.unsynced = false;
  if (PQpipelineSync(link.conn) != 1) {
    fail_link(link, Outcome::kUnavailable,
              "lost the database connection: " + first_line(PQerrorMessage(link.conn)));
    return;
  }
  flush(link);
}

void PostgresDatabase::flush(Link& link) {
  const int pending = PQflush(link.conn);
  if (pending < 0) {
    fail_link(link, Outcome::kUnavailable,
              "lost the database connection: " + first_line(PQerrorMessage(link.conn)));
    return;
  }
  // What the socket did not take goes when it is writable again.
  link.watch(pending == 1 ? core::kReadable | core::kWritable : core::kReadable);
}

void PostgresDatabase::on_link_io(Link& link, core::IoEvents events) {
  if (link.state == Link::State::kConnecting) {
    poll_connect(link);
    return;
  }
  if (link.state != Link::State::kReady) return;
  if ((events & core::kWritable) != 0) {
    flush(link);
    if (link.state != Link::State::kReady) return;
  }
  if ((events & (core::kReadable | core::kPeerClosed | core::kError)) != 0) {
    if (PQconsumeInput(link.conn) != 1) {
      fail_link(link, Outcome::kUnavailable,
                "lost the database connection: " + first_line(PQerrorMessage(link.conn)));
      return;
    }
    read_results(link);
  }
}

void PostgresDatabase::read_results(Link& link) {
  while (link.state == Link::State::kReady && !link.lost && PQisBusy(link.conn) == 0) {
    PGresult* result = PQgetResult(link.conn);
    Operation* op = link.in_flight.front();
    if (result == nullptr) {
      // In pipeline mode a null ends each query's results. One with no result before it means
      // nothing more has arrived.
      if (op == nullptr || !op->got_result) break;
      op->got_result = false;
      if (++op->completed == op->queries) complete(link, *link.in_flight.pop());
      continue;
    }
    if (PQresultStatus(result) == PGRES_PIPELINE_SYNC || op == nullptr) {
      PQclear(result);
      continue;
    }
    op->got_result = true;
    handle_result(link, *op, result);
    PQclear(result);
  }
  if (link.state == Link::State::kReady && (link.prepare_failed || link.lost)) {
    fail_link(link, Outcome::kUnavailable, last_error_);
  } else if (link.state == Link::State::kReady && PQstatus(link.conn) == CONNECTION_BAD) {
    fail_link(link, Outcome::kUnavailable,
              "lost the database connection: " + first_line(PQerrorMessage(link.conn)));
  }
}

void PostgresDatabase::handle_result(Link& link, Operation& op, PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_PIPELINE_ABORTED) {
    op.aborted = true;
    return;
  }
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    // A lost connection also comes as an error result (libpq makes one for the query in flight),
    // as does a server shutting down (SQLSTATE class 08, 57P0x): that is an outage, not a query
    // error; read_results then fails the whole connection with kUnavailable, this one included.
    const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    const std::string_view sqlstate = state != nullptr ? state : "";
    if (PQstatus(link.conn) == CONNECTION_BAD || sqlstate.starts_with("08") ||
        sqlstate.starts_with("57P")) {
      link.lost = true;
      last_error_ = "lost the database connection: " + first_line(PQresultErrorMessage(result));
      return;
    }
    if (!op.failed) op.set_detail(PQresultErrorMessage(result));
    op.failed = true;
    if (op.kind == OpKind::kPrepare && !link.prepare_failed) {
      link.prepare_failed = true;
      last_error_ = "cannot prepare statements (run `ringside db init --db URL`?): " +
                    std::string(op.detail_view());
    }
    return;
  }
  if (op.failed || op.sink == nullptr) return;
  const int rows = PQntuples(result);
  switch (op.kind) {
    case OpKind::kUser:
      if (rows > 0) {
        UserRow row;
        std::int64_t id = 0;
        (void)parse_int(PQgetvalue(result, 0, 0), id);
        row.id = id;
        row.name = {PQgetvalue(result, 0, 1), static_cast<std::size_t>(PQgetlength(result, 0, 1))};
        row.email = {PQgetvalue(result, 0, 2), static_cast<std::size_t>(PQgetlength(result, 0, 2))};
        row.created_at = {PQgetvalue(result, 0, 3),
                          static_cast<std::size_t>(PQgetlength(result, 0, 3))};
        op.sink->on_user(row);
      }
      break;
    case OpKind::kWorlds:
      if (rows > 0) {
        std::int64_t id = 0;
        std::int64_t number = 0;
        (void)parse_int(PQgetvalue(result, 0, 0), id);
        (void)parse_int(PQgetvalue(result, 0, 1), number);
        op.sink->on_world(op.completed, {static_cast<std::int32_t>(id),
                                         static_cast<std::int32_t>(number)});
      }
      break;
    case OpKind::kFortunes:
      for (int i = 0; i < rows; ++i) {
        std::int64_t id = 0;
        (void)parse_int(PQgetvalue(result, i, 0), id);
        op.sink->on_fortune({static_cast<std::int32_t>(id),
                             {PQgetvalue(result, i, 1),
                              static_cast<std::size_t>(PQgetlength(result, i, 1))}});
      }
      break;
    case OpKind::kWrite:
    case OpKind::kPrepare:
      break;
  }
}

void PostgresDatabase::complete(Link&, Operation& op) {
  if (op.kind == OpKind::kPrepare) {
    release(op);
    return;
  }
  if (op.aborted && !op.failed && op.retries < kMaxRetries) {
    // Never ran: an earlier query of its pipeline failed. Send it again.
    op.aborted = false;
    op.completed = 0;
    op.queries = 0;
    ++op.retries;
    submit(op);
    return;
  }
  if (op.failed || op.aborted) {
    finish(op, Outcome::kFailed,
           op.failed ? op.detail_view() : std::string_view("aborted by errors of other queries"));
    return;
  }
  finish(op, Outcome::kOk, {});
}

void PostgresDatabase::fail_link(Link& link, Outcome outcome, std::string_view detail) {
  last_error_ = std::string(detail);
  fail_all(link, outcome, last_error_);
  link.close();
  link.retry_at = loop_.now() + link.backoff;
  link.backoff = std::min(link.backoff * 2, kMaxBackoff);
  // Nothing left that could take the waiting requests: tell them now rather than at their
  // deadline.
  if (pick_ready_link() == nullptr && !any_connecting()) fail_waiting(Outcome::kUnavailable, last_error_);
}

void PostgresDatabase::fail_all(Link& link, Outcome outcome, std::string_view detail) {
  // Detached first: a sink may submit again from on_done, and this link is no place for it.
  OpQueue ops = std::move(link.in_flight);  // leaves it empty
  link.state = Link::State::kDown;
  const std::string text(detail);
  while (Operation* op = ops.pop()) {
    if (op->kind == OpKind::kPrepare) {
      release(*op);
    } else {
      finish(*op, outcome, text);
    }
  }
}

}  // namespace

std::unique_ptr<Database> open_postgres_database(const std::string& conninfo, unsigned pool,
                                                 double timeout_s, core::EventLoop& loop) {
  return std::make_unique<PostgresDatabase>(conninfo, pool == 0 ? 1 : pool, timeout_s, loop);
}

}  // namespace ringside::db
