#include "server/router.hpp"

#include <iterator>
#include <utility>

namespace ringside::server {
namespace {

constexpr std::string_view kMethodNames[] = {"GET", "HEAD", "POST", "PUT", "DELETE",
                                             "OPTIONS", "PATCH", "CONNECT", "TRACE"};

std::string allow_header_for(MethodMask methods) {
  std::string header = "Allow: ";
  bool first = true;
  for (unsigned i = 0; i < std::size(kMethodNames); ++i) {
    if (!(methods & (1u << i))) continue;
    if (!first) header += ", ";
    header += kMethodNames[i];
    first = false;
  }
  return header + "\r\n";
}

// Matches `path` against `pattern`, whose ":name" segments each take one non-empty segment of the
// path into `params`.
bool matches(std::string_view pattern, std::string_view path, RouteParams& params) {
  params.count = 0;
  std::size_t p = 0;
  std::size_t q = 0;
  while (p < pattern.size()) {
    if (pattern[p] == ':' && p > 0 && pattern[p - 1] == '/') {
      while (p < pattern.size() && pattern[p] != '/') ++p;
      const std::size_t start = q;
      while (q < path.size() && path[q] != '/') ++q;
      if (q == start || params.count == kMaxRouteParams) return false;
      params.values[params.count++] = path.substr(start, q - start);
      continue;
    }
    if (q >= path.size() || pattern[p] != path[q]) return false;
    ++p;
    ++q;
  }
  return q == path.size();
}

bool is_pattern(std::string_view path) { return path.find("/:") != std::string_view::npos; }

// Cheap and good enough for a few dozen paths: the length and two bytes most paths differ in.
std::size_t path_hash(std::string_view path) {
  if (path.empty()) return 0;
  const auto last = static_cast<unsigned char>(path.back());
  const auto middle = static_cast<unsigned char>(path[path.size() / 2]);
  return path.size() * 0x9e37u ^ last * 0x85u ^ middle * 0x3bu;
}

}  // namespace

void Router::add(std::string_view path, MethodMask methods, Handler handler) {
  // Every route of a path carries the Allow header for the union of the path's methods, so a 405
  // names every method some route of that path takes.
  MethodMask all = methods;
  for (const Route& route : routes_) {
    if (route.path == path) all |= route.methods;
  }
  std::string allow = allow_header_for(all);
  for (Route& route : routes_) {
    if (route.path == path) route.allow_header = allow;
  }
  const std::size_t index = routes_.size();
  routes_.push_back({std::string(path), methods, handler, std::move(allow), is_pattern(path)});
  RouteParams unused;
  if (routes_.back().is_pattern) {
    patterns_.push_back(index);
    for (ExactPath& exact : exact_paths_) {
      if (matches(path, exact.path, unused)) exact.routes.push_back(index);
    }
    return;
  }
  for (ExactPath& exact : exact_paths_) {
    if (exact.path == path) {
      exact.routes.push_back(index);
      return;
    }
  }
  ExactPath exact{std::string(path), {}};
  for (std::size_t pattern : patterns_) {
    if (matches(routes_[pattern].path, path, unused)) exact.routes.push_back(pattern);
  }
  exact.routes.push_back(index);
  exact_paths_.push_back(std::move(exact));
  index_exact_paths();
}

void Router::index_exact_paths() {
  std::size_t size = 8;
  while (size < 4 * exact_paths_.size()) size *= 2;
  slots_.assign(size, 0);
  for (std::size_t i = 0; i < exact_paths_.size(); ++i) {
    std::size_t slot = path_hash(exact_paths_[i].path) & (size - 1);
    while (slots_[slot] != 0) slot = (slot + 1) & (size - 1);
    slots_[slot] = static_cast<std::uint16_t>(i + 1);
  }
}

const Router::ExactPath* Router::find_exact(std::string_view path) const {
  if (slots_.empty()) return nullptr;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = path_hash(path) & mask; slots_[slot] != 0; slot = (slot + 1) & mask) {
    const ExactPath& exact = exact_paths_[slots_[slot] - 1];
    if (exact.path == path) return &exact;
  }
  return nullptr;
}

Reply Router::route(Exchange& exchange) const {
  const http::Request& request = exchange.request();
  const MethodMask method = method_bit(request.method);
  exchange.params.count = 0;
  const Route* same_path = nullptr;
  if (const ExactPath* exact = find_exact(request.path)) {
    for (std::size_t i : exact->routes) {
      const Route& route = routes_[i];
      if (!(route.methods & method)) continue;
      // A pattern that matches this path hands its segments to the handler.
      if (route.is_pattern) (void)matches(route.path, request.path, exchange.params);
      return route.handler(exchange);
    }
    same_path = &routes_[exact->routes.front()];
  } else {
    for (std::size_t i : patterns_) {
      const Route& route = routes_[i];
      if (!matches(route.path, request.path, exchange.params)) continue;
      if (route.methods & method) return route.handler(exchange);
      if (same_path == nullptr) same_path = &route;
    }
    exchange.params.count = 0;
  }
  if (same_path != nullptr) {
    return {http::Status::kMethodNotAllowed, "text/plain",
            "method not allowed on this path; the Allow header lists the ones that are\n",
            same_path->allow_header};
  }
  return {http::Status::kNotFound, "text/plain", "no route for this path\n", {}};
}

}  // namespace ringside::server
