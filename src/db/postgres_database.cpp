#include "db/postgres_database.hpp"

#include <stdexcept>

namespace ringside::db {

std::unique_ptr<Database> open_postgres_database(const std::string&, unsigned, double,
                                                 core::EventLoop&) {
  throw std::runtime_error("PostgreSQL routes are not built yet");
}

}  // namespace ringside::db
