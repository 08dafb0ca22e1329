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
  routes_.push_back({std::string(path), methods, handler, std::move(allow)});
}

Reply Router::route(Exchange& exchange) const {
  const http::Request& request = exchange.request();
  const Route* same_path = nullptr;
  for (const Route& route : routes_) {
    if (!matches(route.path, request.path, exchange.params)) continue;
    if (route.methods & method_bit(request.method)) return route.handler(exchange);
    if (same_path == nullptr) same_path = &route;
  }
  exchange.params.count = 0;
  if (same_path != nullptr) {
    return {http::Status::kMethodNotAllowed, "text/plain",
            "method not allowed on this path; the Allow header lists the ones that are\n",
            same_path->allow_header};
  }
  return {http::Status::kNotFound, "text/plain", "no route for this path\n", {}};
}

}  // namespace ringside::server
