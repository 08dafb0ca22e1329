// The PostgreSQL backend: a few non-blocking libpq connections per worker, driven by the worker's
// event loop, in pipeline mode. The queries that one loop turn's requests ask for go out together
// and end with one Sync, so one round trip (and one read and one write on each side) carries many
// requests' queries. Connections that fail are replaced with backoff; while none works, requests
// fail at once with kUnavailable (503) instead of waiting.
#pragma once

#include <memory>
#include <string>

#include "core/event_loop.hpp"
#include "db/database.hpp"

namespace ringside::db {

std::unique_ptr<Database> open_postgres_database(const std::string& conninfo, unsigned pool,
                                                 double timeout_s, core::EventLoop& loop);

}  // namespace ringside::db
