#include "routes/database_call.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "core/clock.hpp"
#include "http/html_writer.hpp"
#include "http/json_writer.hpp"

namespace ringside::routes {
namespace {

using server::Reply;

// The World table's rows (db/schema.hpp's seed): ids and random numbers are 1..kWorldRows.
constexpr std::int32_t kWorldRows = 10'000;

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kHtml = "text/html; charset=utf-8";
constexpr std::string_view kRetryAfter = "Retry-After: 1\r\n";
constexpr std::string_view kAddedFortune = "Additional fortune added at request time.";
// Bytes one World object takes at most: {"id":10000,"randomNumber":10000}, and a comma.
constexpr std::size_t kWorldJsonBytes = 64;

// The block holds, by kind: world ids, their numbers, and the rows sorted for the write...
constexpr std::size_t kNumbersOffset = db::kMaxWorldIds * sizeof(std::int32_t);
constexpr std::size_t kSortedOffset = 2 * kNumbersOffset;
static_assert(kSortedOffset + db::kMaxWorldIds * sizeof(db::WorldRow) <= DatabaseCall::kBlockBytes);

bool append_world(http::OutBuffer& body, std::int32_t id, std::int32_t number) {
  if (body.remaining() < kWorldJsonBytes) return false;
  body.append(R"({"id":)");
  body.append_decimal(static_cast<std::uint32_t>(id));
  body.append(R"(,"randomNumber":)");
  body.append_decimal(static_cast<std::uint32_t>(number));
  body.append("}");
  return true;
}

}  // namespace

void DatabaseCall::start(DatabaseCalls& owner, CallKind kind, char* block) {
  owner_ = &owner;
  kind_ = kind;
  block_ = block;
  pending_ = nullptr;
  user_id = 0;
  count = 1;
  in_handler_ = finished_ = writing_ = overflow_ = false;
  outcome_ = db::Outcome::kOk;
  found_ = 0;
  user_json_ = fortune_bytes_ = 0;
  detail_len_ = 0;
}

std::span<std::int32_t> DatabaseCall::ids() {
  return {reinterpret_cast<std::int32_t*>(block_), count};
}

std::span<std::int32_t> DatabaseCall::numbers() {
  return {reinterpret_cast<std::int32_t*>(block_ + kNumbersOffset), count};
}

std::span<db::WorldRow> DatabaseCall::sorted_rows() {
  return {reinterpret_cast<db::WorldRow*>(block_ + kSortedOffset), count};
}

std::span<DatabaseCall::FortuneEntry> DatabaseCall::fortunes() {
  return {reinterpret_cast<FortuneEntry*>(block_), found_};
}

Reply DatabaseCall::run(server::Exchange& exchange) {
  in_handler_ = true;
  begin_operation();
  in_handler_ = false;
  if (finished_) {
    // The database answered inside the call (it failed at once): answer now, from the worker's
    // scratch body.
    const Reply reply = reply_into(exchange.body());
    owner_->release_block(block_);
    owner_->release(*this);
    return reply;
  }
  pending_ = &exchange.defer();
  return Reply::later();
}

void DatabaseCall::begin_operation() {
  db::Database& database = owner_->database();
  switch (kind_) {
    case CallKind::kUser:
      database.find_user(user_id, *this);
      break;
    case CallKind::kWorld:
    case CallKind::kQueries:
    case CallKind::kUpdates:
      std::fill(numbers().begin(), numbers().end(), 0);
      database.read_worlds(ids(), *this);
      break;
    case CallKind::kFortunes:
      database.read_fortunes(*this);
      break;
  }
}

// /updates, once every row is read: new numbers, written back in one statement, rows in id order.
void DatabaseCall::begin_write() {
  writing_ = true;
  std::span<std::int32_t> row_ids = ids();
  std::span<std::int32_t> row_numbers = numbers();
  std::span<db::WorldRow> rows = sorted_rows();
  for (std::size_t i = 0; i < count; ++i) {
    row_numbers[i] = owner_->new_random_number(row_numbers[i]);
    rows[i] = {row_ids[i], row_numbers[i]};
  }
  std::sort(rows.begin(), rows.end(),
            [](const db::WorldRow& a, const db::WorldRow& b) { return a.id < b.id; });
  owner_->database().write_worlds(rows, *this);
}

void DatabaseCall::on_user(const db::UserRow& row) {
  http::OutBuffer json(block_, kBlockBytes);
  // The worst case (every byte escaped as \u00XX) is checked cheaply; only a user whose fields
  // might not fit is measured exactly.
  const std::size_t plain = row.name.size() + row.email.size() + row.created_at.size();
  if (96 + 6 * plain > kBlockBytes &&
      96 + http::json_string_size(row.name) + http::json_string_size(row.email) +
              http::json_string_size(row.created_at) > kBlockBytes) {
    overflow_ = true;
    return;
  }
  json.append(R"({"id":)");
  json.append_decimal(static_cast<std::uint64_t>(row.id));
  json.append(R"(,"name":)");
  (void)http::append_json_string(json, row.name);  // room checked above
  json.append(R"(,"email":)");
  (void)http::append_json_string(json, row.email);
  json.append(R"(,"created_at":)");
  (void)http::append_json_string(json, row.created_at);
  json.append("}");
  user_json_ = static_cast<std::uint16_t>(json.size());
  found_ = 1;
}

void DatabaseCall::on_world(std::size_t index, const db::WorldRow& row) {
  if (index >= count) return;
  numbers()[index] = row.random_number;
  ++found_;
}

void DatabaseCall::on_fortune(const db::FortuneRow& row) {
  constexpr std::size_t kMessagesStart = kMaxFortunes * sizeof(FortuneEntry);
  if (found_ >= kMaxFortunes ||
      kMessagesStart + fortune_bytes_ + row.message.size() > kBlockBytes) {
    overflow_ = true;
    return;
  }
  const auto offset = static_cast<std::uint16_t>(kMessagesStart + fortune_bytes_);
  if (!row.message.empty()) std::memcpy(block_ + offset, row.message.data(), row.message.size());
  fortune_bytes_ = static_cast<std::uint16_t>(fortune_bytes_ + row.message.size());
  reinterpret_cast<FortuneEntry*>(block_)[found_] = {row.id, offset,
                                                    static_cast<std::uint16_t>(row.message.size())};
  ++found_;
}

void DatabaseCall::on_done(db::Outcome outcome, std::string_view detail) {
  if (outcome == db::Outcome::kOk && kind_ == CallKind::kUpdates && !writing_ && !overflow_ &&
      found_ == count) {
    begin_write();  // its own on_done comes next, now or later
    return;
  }
  finish(outcome, detail);
}

void DatabaseCall::finish(db::Outcome outcome, std::string_view detail) {
  finished_ = true;
  outcome_ = outcome;
  detail_len_ = static_cast<std::uint8_t>(std::min(detail.size(), sizeof detail_));
  if (detail_len_ > 0) std::memcpy(detail_, detail.data(), detail_len_);
  if (in_handler_) return;  // run() answers
  server::PendingReply& pending = *pending_;
  if (pending.aborted()) {
    pending.respond({});  // the client went away; this only gives the PendingReply back
  } else {
    pending.respond(reply_into(pending.body()));
  }
  owner_->release_block(block_);
  owner_->release(*this);
}

Reply DatabaseCall::fail(http::OutBuffer& body, http::Status status, std::string_view what,
                         std::string_view detail, bool retry) {
  body.clear();
  body.append(R"({"error":)");
  (void)http::append_json_string(body, what);  // short texts into a 32 KiB buffer
  if (!detail.empty()) {
    body.append(R"(,"detail":)");
    (void)http::append_json_string(body, detail);
  }
  body.append("}\n");
  return Reply{status, kJson, body.view(), retry ? kRetryAfter : std::string_view{}};
}

Reply DatabaseCall::reply_into(http::OutBuffer& body) {
  body.clear();
  const std::string_view detail(detail_, detail_len_);
  if (outcome_ != db::Outcome::kOk) {
    if (db::is_transient(outcome_)) {
      const char* what = outcome_ == db::Outcome::kTimeout ? "database timeout"
                         : outcome_ == db::Outcome::kBusy  ? "database busy"
                                                           : "database unavailable";
      return fail(body, http::Status::kServiceUnavailable, what, detail, true);
    }
    return fail(body, http::Status::kInternalServerError, "database error", detail, false);
  }
  if (overflow_) {
    return fail(body, http::Status::kInternalServerError, "rows too large for one response", {},
                false);
  }
  switch (kind_) {
    case CallKind::kUser: {
      if (found_ == 0) {
        body.append(R"({"error":"no user with id )");
        body.append_decimal(static_cast<std::uint64_t>(user_id));
        body.append("\"}\n");
        return Reply{http::Status::kNotFound, kJson, body.view(), {}};
      }
      body.append({block_, user_json_});
      return Reply{http::Status::kOk, kJson, body.view(), {}};
    }
    case CallKind::kWorld:
    case CallKind::kQueries:
    case CallKind::kUpdates: {
      if (found_ < count) {
        return fail(body, http::Status::kInternalServerError, "world rows missing",
                    "the world table lacks some of ids 1..10000: run ringside db init", false);
      }
      const bool array = kind_ != CallKind::kWorld;
      if (array) body.append("[");
      for (std::size_t i = 0; i < count; ++i) {
        if (i > 0) body.append(",");
        (void)append_world(body, ids()[i], numbers()[i]);  // 500 rows fit in kMaxReplyBody
      }
      if (array) body.append("]");
      return Reply{http::Status::kOk, kJson, body.view(), {}};
    }
    case CallKind::kFortunes: {
      struct Row {
        std::int32_t id;
        std::string_view message;
      };
      std::array<Row, kMaxFortunes + 1> rows;
      std::size_t n = 0;
      for (const FortuneEntry& entry : fortunes()) {
        rows[n++] = {entry.id, {block_ + entry.offset, entry.length}};
      }
      rows[n++] = {0, kAddedFortune};
      std::sort(rows.begin(), rows.begin() + n,
                [](const Row& a, const Row& b) { return a.message < b.message; });
      body.append(
          "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
          "<tr><th>id</th><th>message</th></tr>");
      for (std::size_t i = 0; i < n; ++i) {
        if (body.remaining() < 64) return fail(body, http::Status::kInternalServerError,
                                               "rows too large for one response", {}, false);
        body.append("<tr><td>");
        body.append_decimal(static_cast<std::uint32_t>(rows[i].id));
        body.append("</td><td>");
        if (!http::append_html_escaped(body, rows[i].message) || body.remaining() < 64) {
          return fail(body, http::Status::kInternalServerError, "rows too large for one response",
                      {}, false);
        }
        body.append("</td></tr>");
      }
      body.append("</table></body></html>");
      return Reply{http::Status::kOk, kHtml, body.view(), {}};
    }
  }
  return fail(body, http::Status::kInternalServerError, "unknown route", {}, false);
}

DatabaseCalls::DatabaseCalls(std::unique_ptr<db::Database> database, unsigned worker_index)
    : database_(std::move(database)),
      random_state_(0x9e3779b97f4a7c15ull * (worker_index + 1) ^
                    static_cast<std::uint64_t>(core::Clock::now().time_since_epoch().count())) {}

DatabaseCalls::~DatabaseCalls() {
  // First, while the pools below still exist: the database ends every operation in flight, and
  // their calls come back here.
  database_.reset();
}

DatabaseCall& DatabaseCalls::acquire(CallKind kind) {
  DatabaseCall& call = calls_.acquire();
  call.start(*this, kind, blocks_.acquire());
  return call;
}

void DatabaseCalls::release(DatabaseCall& call) { calls_.release(call); }

void DatabaseCalls::release_block(char* block) { blocks_.release(block); }

// splitmix64: fast, and good enough to pick rows.
std::uint64_t DatabaseCalls::next_random() {
  std::uint64_t x = (random_state_ += 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::int32_t DatabaseCalls::random_world_id() {
  return static_cast<std::int32_t>(next_random() % kWorldRows) + 1;
}

std::int32_t DatabaseCalls::new_random_number(std::int32_t old) {
  while (true) {
    auto number = static_cast<std::int32_t>(next_random() % kWorldRows) + 1;
    if (number != old) return number;
  }
}

}  // namespace ringside::routes
