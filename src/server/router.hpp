// Maps a request path and method to a handler. Paths match exactly (the query is ignored). One path
// may have several routes (GET on one, POST on another): the first route of the path that takes
// the method answers; when none does, 405 with an Allow header listing every method of every route
// of that path; an unknown path 404. Routes are added at start-up, before any request is routed
// (replies point at strings the router owns).
//
//   Router router;
//   router.add("/", kGetOrHead, [](const http::Request&) { return Reply{.body = "hi"}; });
//   Reply reply = router.route(request);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/request.hpp"
#include "server/reply.hpp"

namespace ringside::server {

using Handler = Reply (*)(const http::Request&);

using MethodMask = std::uint16_t;
constexpr MethodMask method_bit(http::Method m) { return MethodMask(1u << static_cast<unsigned>(m)); }
inline constexpr MethodMask kGetOrHead = method_bit(http::Method::kGet) | method_bit(http::Method::kHead);

class Router {
 public:
  void add(std::string_view path, MethodMask methods, Handler handler);
  [[nodiscard]] Reply route(const http::Request& request) const;

 private:
  struct Route {
    std::string path;
    MethodMask methods;
    Handler handler;
    std::string allow_header;  // "Allow: GET, HEAD\r\n"
  };
  std::vector<Route> routes_;
};

}  // namespace ringside::server
