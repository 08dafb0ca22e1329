// Maps a request path and method to a handler. Paths match exactly (the query is ignored), except
// that a pattern segment ":name" matches one non-empty path segment and hands it to the handler as
// a parameter ("/users/:id" matches "/users/42": exchange.param(0) == "42"). One path
// may have several routes (GET on one, POST on another): the first route of the path that takes
// the method answers; when none does, 405 with an Allow header listing every method of every route
// of that path; an unknown path 404. Routes are added at start-up, before any request is routed
// (replies point at strings the router owns).
//
// A request for a path some route names exactly (no ":name") costs one hash lookup: each such path
// keeps, in the order added, every route that matches it, patterns included, so the first that
// takes the method answers exactly as a scan of all routes in order would. Only a path no route
// names exactly is matched against the patterns.
//
//   Router router;
//   router.add("/", kGetOrHead, [](Exchange&) { return Reply{.body = "hi"}; });
//   Exchange exchange(request, context, queue);
//   Reply reply = router.route(exchange);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/request.hpp"
#include "server/exchange.hpp"
#include "server/reply.hpp"

namespace ringside::server {

using Handler = Reply (*)(Exchange&);

using MethodMask = std::uint16_t;
constexpr MethodMask method_bit(http::Method m) { return MethodMask(1u << static_cast<unsigned>(m)); }
inline constexpr MethodMask kGetOrHead = method_bit(http::Method::kGet) | method_bit(http::Method::kHead);

class Router {
 public:
  void add(std::string_view path, MethodMask methods, Handler handler);
  // Finds the route, fills exchange.params, calls the handler (or answers 404/405 itself).
  [[nodiscard]] Reply route(Exchange& exchange) const;

 private:
  struct Route {
    std::string path;
    MethodMask methods;
    Handler handler;
    std::string allow_header;  // "Allow: GET, HEAD\r\n"
    bool is_pattern;           // has a ":name" segment
  };
  // A path some route names exactly, with every route that matches it (indices into routes_,
  // ascending).
  struct ExactPath {
    std::string path;
    std::vector<std::size_t> routes;
  };

  [[nodiscard]] const ExactPath* find_exact(std::string_view path) const;
  void index_exact_paths();

  std::vector<Route> routes_;
  std::vector<ExactPath> exact_paths_;
  std::vector<std::size_t> patterns_;  // indices into routes_ of the routes with ":name"
  // Open addressing over exact_paths_: slot value i + 1, or 0 for empty; size a power of two.
  std::vector<std::uint16_t> slots_;
};

}  // namespace ringside::server
