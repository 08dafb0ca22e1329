#include "server/router.hpp"

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

}  // namespace

void Router::add(std::string_view path, MethodMask methods, Handler handler) {
  routes_.push_back({std::string(path), methods, handler, allow_header_for(methods)});
}

Reply Router::route(const http::Request& request) const {
  for (const Route& route : routes_) {
    if (route.path != request.path) continue;
    if (route.methods & method_bit(request.method)) return route.handler(request);
    return {http::Status::kMethodNotAllowed, "text/plain",
            "method not allowed on this path; the Allow header lists the ones that are\n",
            route.allow_header};
  }
  return {http::Status::kNotFound, "text/plain", "no route for this path\n", {}};
}

}  // namespace ringside::server
