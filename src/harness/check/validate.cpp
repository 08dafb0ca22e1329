#include "harness/check/validate.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <ctime>
#include <nlohmann/json.hpp>

#include "http/token.hpp"

namespace ringside::harness {
namespace {

constexpr std::string_view kHelloBody = "Hello World!";
constexpr std::string_view kJsonBody = R"({"message":"Hello, World!"})";
constexpr long kUserRows = 10'000;               // src/db/schema.hpp
constexpr std::time_t kUsersEpoch = 1'704'067'200;  // 2024-01-01T00:00:00Z
constexpr std::size_t kQuoteLimit = 120;

std::string user_json(long id) {
  std::time_t when = kUsersEpoch + id;
  std::tm parts{};
  gmtime_r(&when, &parts);
  char created[32];
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &parts);
  nlohmann::json user = {{"id", id},
                         {"name", "User " + std::to_string(id)},
                         {"email", "user" + std::to_string(id) + "@example.com"},
                         {"created_at", created}};
  return user.dump();
}

// At most kQuoteLimit characters of text, control bytes shown, for a one-line reason.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, kQuoteLimit)) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (static_cast<unsigned char>(c) < 0x20) out += '?';
    else out += c;
  }
  return text.size() > kQuoteLimit ? out + "..." : out;
}

std::string quote(std::string_view text) { return "'" + printable(text) + "'"; }

// The media type of a Content-Type value: "text/plain; charset=utf-8" -> "text/plain".
std::string media_type(std::string_view value) {
  std::string_view type = value.substr(0, value.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  return http::lowercase_copy(type);
}

// IMF-fixdate, RFC 9110 section 5.6.7: "Sun, 06 Nov 1994 08:49:37 GMT".
bool is_imf_fixdate(std::string_view date) {
  std::tm parts{};
  const std::string text(date);
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return date.size() == 29 && end != nullptr && *end == '\0';
}

// The contract of /users/:id: a positive decimal integer without a sign or leading zeros that
// fits in 63 bits is an id (found or not); anything else is not (400).
bool parse_user_id(std::string_view text, std::uint64_t& value) {
  if (text.empty() || text.size() > 19 || text[0] == '0') return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');  // 19 digits fit in 64 bits
  }
  return value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

Check passed(std::string name) { return {std::move(name), true, {}}; }
Check failed(std::string name, std::string reason) {
  return {std::move(name), false, std::move(reason)};
}

// The paths whose answers are checked route by route.
std::vector<std::string> probe_paths(const std::vector<Route>& routes) {
  std::vector<std::string> paths;
  for (Route route : routes) {
    switch (route) {
      case Route::kHello: paths.emplace_back("/"); break;
      case Route::kJson: paths.emplace_back("/json"); break;
      case Route::kUsers:
        // Found; past the table, past 32 bits and at the 63-bit limit (404); and not ids at
        // all: past 63 bits, zero, signed, a leading zero, letters (400).
        for (const char* path : {"/users/1", "/users/4242", "/users/10000", "/users/10001",
                                 "/users/2147483648", "/users/9223372036854775807",
                                 "/users/9223372036854775808", "/users/0", "/users/-1",
                                 "/users/01", "/users/abc"}) {
          paths.emplace_back(path);
        }
        break;
      case Route::kDb: paths.emplace_back("/db"); break;
    }
  }
  return paths;
}

bool claims(const std::vector<Route>& routes, Route route) {
  return std::find(routes.begin(), routes.end(), route) != routes.end();
}

// Why a response ends its connection, from what it said: its HTTP version and Connection header.
std::string closing_reason(const HttpResponse& response) {
  const std::string* connection = response.header("Connection");
  const std::string said = connection != nullptr ? "Connection: " + printable(*connection) : "";
  if (response.version_minor == 0) {
    return "the server answered HTTP/1.0 with " +
           (said.empty() ? std::string("no Connection: keep-alive") : said) +
           ", and closed the connection: HTTP/1.0 servers close after each response; answer "
           "HTTP/1.1 (Python: protocol_version = 'HTTP/1.1')";
  }
  return "the server answered HTTP/1.1 with " + (said.empty() ? "Connection: close" : said) +
         ", and closed the connection: benchmarks run on persistent connections; keep it open "
         "(send Connection: close only when the client asks for it)";
}

// One request per path on one connection, each answer judged in turn; `pipelined` sends them all
// in one write first. "" when every answer is right.
std::string exchange(int port, const std::vector<std::string>& paths, bool pipelined,
                     const ValidateOptions& options) {
  HttpConnection connection;
  std::string error;
  if (!connection.connect(options.host, port, options.tls.get(), options.timeout_s, error)) return error;
  if (pipelined) {
    std::string requests;
    for (const auto& path : paths) requests += get_request(path);
    if (!connection.send(requests, options.timeout_s, error)) return error;
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string which = "request " + std::to_string(i + 1) + " of " +
                              std::to_string(paths.size()) + " (GET " + paths[i] + "): ";
    if (!pipelined && !connection.send(get_request(paths[i]), options.timeout_s, error)) {
      return which + error;
    }
    HttpResponse response;
    if (!connection.read_response(response, options.timeout_s, error)) return which + error;
    std::string problem = judge_response(response, expectation_for(paths[i]));
    if (!problem.empty()) return which + problem;
    if (!response.keep_alive && i + 1 < paths.size()) {
      return which + closing_reason(response);
    }
  }
  if (connection.buffered() > 0) {
    return std::to_string(connection.buffered()) + " bytes arrived after the last response";
  }
  return {};
}

Check check_path(int port, const std::string& path, const ValidateOptions& options) {
  const std::string name = "GET " + path;
  HttpConnection connection;
  std::string error;
  HttpResponse response;
  if (!connection.connect(options.host, port, options.tls.get(), options.timeout_s, error) ||
      !connection.send(get_request(path), options.timeout_s, error) ||
      !connection.read_response(response, options.timeout_s, error)) {
    return failed(name, error);
  }
  std::string problem = judge_response(response, expectation_for(path));
  if (!problem.empty()) return failed(name, problem);
  if (connection.buffered() > 0) {
    return failed(name, std::to_string(connection.buffered()) +
                            " bytes arrived after the response: its framing is wrong");
  }
  return passed(name);
}

Check check_keep_alive(int port, const std::vector<std::string>& probes,
                       const ValidateOptions& options) {
  const std::string name = "keep-alive x" + std::to_string(options.keep_alive_requests);
  std::vector<std::string> paths;
  for (int i = 0; i < options.keep_alive_requests; ++i) paths.push_back(probes[i % probes.size()]);
  std::string problem = exchange(port, paths, false, options);
  return problem.empty() ? passed(name) : failed(name, problem);
}

Check check_pipelining(int port, const std::vector<Route>& routes, const ValidateOptions& options) {
  const std::string name = "pipelined x" + std::to_string(options.pipelined_requests);
  // Distinct answers where the routes allow, so an answer out of order is seen as such.
  std::vector<std::string> paths;
  for (int i = 0; i < options.pipelined_requests; ++i) {
    if (claims(routes, Route::kUsers)) {
      paths.push_back("/users/" + std::to_string(i + 1));
    } else if (claims(routes, Route::kHello) && claims(routes, Route::kJson)) {
      paths.emplace_back(i % 2 == 0 ? "/" : "/json");
    } else {
      paths.emplace_back(claims(routes, Route::kHello) ? "/" : "/json");
    }
  }
  std::string problem = exchange(port, paths, true, options);
  return problem.empty() ? passed(name) : failed(name, problem);
}

Check check_split(int port, const std::string& path, const ValidateOptions& options) {
  const std::string name = "split request";
  HttpConnection connection;
  std::string error;
  HttpResponse response;
  if (!connection.connect(options.host, port, options.tls.get(), options.timeout_s, error) ||
      !connection.send_bytewise(get_request(path), options.split_pause, options.timeout_s,
                                error) ||
      !connection.read_response(response, options.timeout_s, error)) {
    return failed(name, "GET " + path + " written a byte at a time: " + error);
  }
  std::string problem = judge_response(response, expectation_for(path));
  if (!problem.empty()) return failed(name, "GET " + path + " written a byte at a time: " + problem);
  return passed(name);
}

// A handshake verified against the run's CA (for the name the context sends as SNI), and the
// version, cipher and ALPN protocol it agreed on. The client offers only http/1.1, so a server
// that chose another protocol has already failed the handshake; one that chose none is noted.
Check check_tls_handshake(int port, const ValidateOptions& options, TlsFacts* handshake) {
  const std::string name = "TLS handshake";
  HttpConnection connection;
  std::string error;
  if (!connection.connect(options.host, port, options.tls.get(), options.timeout_s, error)) {
    return failed(name, error);
  }
  if (handshake != nullptr) *handshake = *connection.tls();
  return passed(name);
}

}  // namespace

Expectation expectation_for(std::string_view path) {
  if (path == "/") return {200, "text/plain", std::string(kHelloBody), false};
  if (path == "/json") return {200, "application/json", std::string(kJsonBody), true};
  constexpr std::string_view kUsers = "/users/";
  if (path.substr(0, kUsers.size()) == kUsers) {
    std::uint64_t id = 0;
    if (!parse_user_id(path.substr(kUsers.size()), id)) return {400, "", "", false, true};
    if (id > static_cast<std::uint64_t>(kUserRows)) return {404, "", "", false, true};
    return {200, "application/json", user_json(static_cast<long>(id)), true};
  }
  if (path == "/db") return {200, "application/json", "", false, false, true};
  return {404, "", "", false};
}

std::string judge_response(const HttpResponse& response, const Expectation& expected) {
  if (response.status != expected.status) {
    return "status " + std::to_string(response.status) + " (expected " +
           std::to_string(expected.status) + ")";
  }
  if (response.framing == Framing::kUntilClose) {
    return "no Content-Length and not chunked: the body runs until close";
  }
  const std::string* date = response.header("Date");
  if (date == nullptr) return "no Date header";
  if (!is_imf_fixdate(*date)) return "Date header " + quote(*date) + " is not an IMF-fixdate";
  if (!expected.content_type.empty()) {
    const std::string* type = response.header("Content-Type");
    if (type == nullptr) return "no Content-Type (expected " + std::string(expected.content_type) + ")";
    if (media_type(*type) != expected.content_type) {
      return "Content-Type " + quote(*type) + " (expected " + std::string(expected.content_type) +
             ")";
    }
  }
  if (expected.json) {
    const auto body = nlohmann::json::parse(response.body, nullptr, false);
    if (body.is_discarded()) return "body " + quote(response.body) + " is not JSON";
    if (body != nlohmann::json::parse(expected.body)) {
      return "body " + quote(response.body) + " (expected " + quote(expected.body) + ")";
    }
  } else if (expected.world_row) {
    // TechEmpower's single-query test: one random row of World, numbers as JSON numbers.
    const auto body = nlohmann::json::parse(response.body, nullptr, false);
    auto in_range = [&](const char* key) {
      return body.is_object() && body.contains(key) && body.at(key).is_number_integer() &&
             body.at(key).get<long long>() >= 1 && body.at(key).get<long long>() <= kUserRows;
    };
    if (!in_range("id") || !in_range("randomNumber")) {
      return "body " + quote(response.body) +
             " is not a World row (a JSON object with integer \"id\" and \"randomNumber\" in 1..10000)";
    }
  } else if (expected.json_error) {
    const auto body = nlohmann::json::parse(response.body, nullptr, false);
    if (!body.is_object() || !body.contains("error")) {
      return "body " + quote(response.body) + " is not a JSON object with \"error\"";
    }
  } else if (!expected.body.empty() && response.body != expected.body) {
    return "body " + quote(response.body) + " (expected " + quote(expected.body) + ")";
  }
  return {};
}

// Told to listen on {host}, a server that answers on 127.0.0.1 too listens on a wildcard address
// (or ignores {host}): with load from other machines it would be reachable where it must not be,
// and a run on a loopback {host} would not notice. Only asked when {host} is not 127.0.0.1.
Check check_only_on_host(int port, const ValidateOptions& options) {
  const std::string name = "listens on " + options.host + " only";
  HttpConnection connection;
  std::string error;
  // Refused, or unreachable (a network namespace whose loopback is down): either way not there.
  if (!connection.connect("127.0.0.1", port, options.timeout_s, error)) return passed(name);
  return failed(name, "127.0.0.1:" + std::to_string(port) + " accepts connections too: it listens "
                      "on a wildcard address or ignores {host}; make it listen on {host} only");
}

std::vector<Check> validate_server(int port, const std::vector<Route>& routes,
                                   const ValidateOptions& options, TlsFacts* handshake) {
  std::vector<Check> checks;
  const std::vector<std::string> probes = probe_paths(routes);
  if (probes.empty()) return checks;
  auto stopped = [&] { return options.stop != nullptr && options.stop->load(); };
  if (options.tls) {
    checks.push_back(check_tls_handshake(port, options, handshake));
    if (!checks.back().passed) return checks;
  }
  for (const auto& path : probes) {
    if (stopped()) return checks;
    checks.push_back(check_path(port, path, options));
  }
  if (stopped()) return checks;
  checks.push_back(check_keep_alive(port, probes, options));
  if (stopped()) return checks;
  if (options.pipelining) {
    checks.push_back(check_pipelining(port, routes, options));
    if (stopped()) return checks;
  }
  // A longer path where there is one, so more of the request line arrives in pieces.
  checks.push_back(check_split(port, claims(routes, Route::kUsers) ? "/users/1" : probes.front(),
                               options));
  if (options.host != "127.0.0.1" && !stopped()) {
    checks.push_back(check_only_on_host(port, options));
  }
  return checks;
}

std::string describe_checks(const std::vector<Check>& checks) {
  constexpr std::string_view kUsers = "GET /users/";
  std::vector<std::pair<std::string, int>> runs;  // a label and how many checks in a row have it
  for (const Check& check : checks) {
    const std::string label = check.name.rfind(kUsers, 0) == 0 ? "GET /users/:id" : check.name;
    if (!runs.empty() && runs.back().first == label) {
      ++runs.back().second;
    } else {
      runs.emplace_back(label, 1);
    }
  }
  std::string text;
  for (const auto& [label, count] : runs) {
    text += (text.empty() ? "" : ", ") + label + (count > 1 ? " x" + std::to_string(count) : "");
  }
  return text;
}

}  // namespace ringside::harness
