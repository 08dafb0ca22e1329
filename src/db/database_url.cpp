#include "db/database_url.hpp"

namespace ringside::db {

std::optional<DatabaseTarget> parse_database_url(std::string_view text, std::string& error) {
  if (text.empty()) return DatabaseTarget{Backend::kSqlite, std::string(kDefaultSqliteFile)};
  if (text == "none") return DatabaseTarget{Backend::kNone, {}};
  if (text.starts_with("sqlite:")) {
    std::string_view path = text.substr(7);
    if (path.starts_with("//")) path.remove_prefix(2);  // sqlite://PATH, as some tools write it
    if (path.empty()) {
      error = "sqlite: needs a file path, as in sqlite:./ringside.db";
      return std::nullopt;
    }
    return DatabaseTarget{Backend::kSqlite, std::string(path)};
  }
  if (text.starts_with("postgres://") || text.starts_with("postgresql://") ||
      text.find('=') != std::string_view::npos) {
    return DatabaseTarget{Backend::kPostgres, std::string(text)};
  }
  error = "not a database URL: " + std::string(text) +
          " (use sqlite:PATH, postgres://user@host:port/dbname, a libpq key=value string, or none)";
  return std::nullopt;
}

std::string describe(const DatabaseTarget& target) {
  if (target.backend == Backend::kNone) return "none";
  if (target.backend == Backend::kSqlite) return "sqlite:" + target.location;
  std::string text = target.location;
  // postgres://user:secret@host -> postgres://user:***@host
  const std::size_t scheme = text.find("://");
  if (scheme != std::string::npos) {
    const std::size_t at = text.find('@', scheme + 3);
    const std::size_t colon = text.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at) {
      text.replace(colon + 1, at - colon - 1, "***");
    }
  }
  const std::size_t password = text.find("password=");
  if (password != std::string::npos) {
    std::size_t end = text.find_first_of(" &", password);
    if (end == std::string::npos) end = text.size();
    text.replace(password + 9, end - password - 9, "***");
  }
  return text;
}

}  // namespace ringside::db
