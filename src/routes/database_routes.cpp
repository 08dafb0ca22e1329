#include "routes/database_routes.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string_view>

#include "http/query.hpp"

namespace ringside::routes {
namespace {

using server::Exchange;
using server::Reply;

// "/users/:id": a positive decimal integer that fits in 63 bits; nothing else (no sign, no
// spaces, no leading zeros beyond "0" itself, which is not positive anyway).
bool parse_positive_id(std::string_view text, std::int64_t& id) {
  if (text.empty() || text.size() > 19 || text[0] == '0') return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  return error == std::errc() && end == text.data() + text.size() && id > 0;
}

std::string_view query_of(const http::Request& request) {
  const std::size_t mark = request.target.find('?');
  return mark == std::string_view::npos ? std::string_view{} : request.target.substr(mark + 1);
}

DatabaseWorker& worker_of(Exchange& exchange) {
  return static_cast<DatabaseWorker&>(*exchange.extension());
}

Reply no_database(Exchange&) {
  return Reply{http::Status::kServiceUnavailable, "application/json",
               R"({"error":"this server runs without a database"})" "\n", {}};
}

// The handlers refuse to run on a server started without a DatabaseWorker (a router test).
bool has_database(Exchange& exchange) {
  return exchange.extension() != nullptr && exchange.can_defer();
}

Reply user_route(Exchange& exchange) {
  if (!has_database(exchange)) return no_database(exchange);
  std::int64_t id = 0;
  if (!parse_positive_id(exchange.param(0), id)) {
    return Reply{http::Status::kBadRequest, "application/json",
                 R"({"error":"the user id must be a positive integer"})" "\n", {}};
  }
  DatabaseCall& call = worker_of(exchange).acquire(CallKind::kUser);
  call.user_id = id;
  return call.run(exchange);
}

Reply worlds_route(Exchange& exchange, CallKind kind, unsigned count) {
  if (!has_database(exchange)) return no_database(exchange);
  DatabaseWorker& worker = worker_of(exchange);
  DatabaseCall& call = worker.acquire(kind);
  call.count = count;
  std::span<std::int32_t> ids = call.ids();
  for (std::int32_t& id : ids) id = worker.random_world_id();
  if (kind == CallKind::kUpdates) {
    // Distinct ids, so that every row read is also a row changed (TechEmpower's verifier counts
    // them) and one statement never updates a row twice.
    std::array<std::int32_t, db::kMaxWorldIds> sorted;
    while (true) {
      std::copy(ids.begin(), ids.end(), sorted.begin());
      std::sort(sorted.begin(), sorted.begin() + count);
      auto repeat = std::adjacent_find(sorted.begin(), sorted.begin() + count);
      if (repeat == sorted.begin() + count) break;
      *std::find(ids.begin(), ids.end(), *repeat) = worker.random_world_id();
    }
  }
  return call.run(exchange);
}

}  // namespace

void add_database_routes(server::Router& router) {
  router.add("/users/:id", server::kGetOrHead, user_route);
  router.add("/db", server::kGetOrHead,
             [](Exchange& exchange) { return worlds_route(exchange, CallKind::kWorld, 1); });
  router.add("/queries", server::kGetOrHead, [](Exchange& exchange) {
    return worlds_route(exchange, CallKind::kQueries,
                        http::queries_count(query_of(exchange.request())));
  });
  router.add("/updates", server::kGetOrHead, [](Exchange& exchange) {
    return worlds_route(exchange, CallKind::kUpdates,
                        http::queries_count(query_of(exchange.request())));
  });
  router.add("/fortunes", server::kGetOrHead, [](Exchange& exchange) {
    if (!has_database(exchange)) return no_database(exchange);
    return worker_of(exchange).acquire(CallKind::kFortunes).run(exchange);
  });
}

}  // namespace ringside::routes
