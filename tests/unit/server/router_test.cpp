#include "server/router.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace ringside::server {
namespace {

using http::Method;
using http::Status;

Reply plaintext(Exchange&) { return {.body = "Hello, World!"}; }
Reply json(Exchange&) {
  return {.content_type = "application/json", .body = R"({"message":"Hello, World!"})"};
}
Reply echo_path(Exchange& exchange) { return {.body = exchange.request().path}; }
Reply created(Exchange&) { return {.status = Status::kNoContent}; }

// Routes a bare request: no connection behind it, so no handler here may defer.
Reply route(const Router& router, const http::Request& request) {
  Exchange exchange(request, nullptr, nullptr);
  return router.route(exchange);
}

http::Request request_for(Method method, std::string_view path) {
  http::Request request;
  request.method = method;
  request.path = path;
  request.target = path;
  return request;
}

Router hello_router() {
  Router router;
  router.add("/plaintext", kGetOrHead, plaintext);
  router.add("/json", kGetOrHead, json);
  router.add("/echo", kGetOrHead, echo_path);
  router.add("/items", method_bit(Method::kPost) | method_bit(Method::kPut), created);
  return router;
}

TEST(Router, ExactPathReachesItsHandler) {
  Router router = hello_router();
  Reply reply = route(router, request_for(Method::kGet, "/plaintext"));
  EXPECT_EQ(reply.status, Status::kOk);
  EXPECT_EQ(reply.content_type, "text/plain");
  EXPECT_EQ(reply.body, "Hello, World!");
  EXPECT_TRUE(reply.extra_headers.empty());

  reply = route(router, request_for(Method::kGet, "/json"));
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_EQ(reply.body, R"({"message":"Hello, World!"})");
}

TEST(Router, HeadIsRoutedLikeGet) {
  Router router = hello_router();
  Reply reply = route(router, request_for(Method::kHead, "/plaintext"));
  EXPECT_EQ(reply.status, Status::kOk);
  EXPECT_EQ(reply.body, "Hello, World!");
}

TEST(Router, QueryIsIgnored) {
  http::Request request = request_for(Method::kGet, "/echo");
  request.target = "/echo?name=value&x=1";
  request.query = "name=value&x=1";
  Router router = hello_router();
  Reply reply = route(router, request);
  EXPECT_EQ(reply.status, Status::kOk);
  EXPECT_EQ(reply.body, "/echo");
}

TEST(Router, MatchIsExactNotPrefixOrCaseInsensitive) {
  Router router = hello_router();
  for (std::string_view path : {"/plaintext/", "/plaintextx", "/plain", "/PLAINTEXT", "", "/"}) {
    Reply reply = route(router, request_for(Method::kGet, path));
    EXPECT_EQ(reply.status, Status::kNotFound) << "path '" << path << "'";
  }
}

TEST(Router, UnknownPathIs404) {
  Router router = hello_router();
  Reply reply = route(router, request_for(Method::kGet, "/missing"));
  EXPECT_EQ(reply.status, Status::kNotFound);
  EXPECT_EQ(reply.content_type, "text/plain");
  EXPECT_FALSE(reply.body.empty());
  EXPECT_EQ(reply.body.back(), '\n');
  EXPECT_TRUE(reply.extra_headers.empty());
}

TEST(Router, WrongMethodIs405WithAllow) {
  Router router = hello_router();
  for (Method method : {Method::kPost, Method::kPut, Method::kDelete, Method::kOther}) {
    Reply reply = route(router, request_for(method, "/plaintext"));
    EXPECT_EQ(reply.status, Status::kMethodNotAllowed);
    EXPECT_EQ(reply.extra_headers, "Allow: GET, HEAD\r\n");
    EXPECT_FALSE(reply.body.empty());
  }
}

TEST(Router, AllowListsTheRouteMethodsInOrder) {
  Router router = hello_router();  // the Allow header lives in the router
  Reply reply = route(router, request_for(Method::kGet, "/items"));
  EXPECT_EQ(reply.status, Status::kMethodNotAllowed);
  EXPECT_EQ(reply.extra_headers, "Allow: POST, PUT\r\n");

  reply = route(router, request_for(Method::kPut, "/items"));
  EXPECT_EQ(reply.status, Status::kNoContent);
}

TEST(Router, EmptyRouterAnswers404) {
  Router router;
  EXPECT_EQ(route(router, request_for(Method::kGet, "/")).status, Status::kNotFound);
}

TEST(Router, FirstMatchingRouteWins) {
  Router router;
  router.add("/dup", kGetOrHead, plaintext);
  router.add("/dup", kGetOrHead, json);
  EXPECT_EQ(route(router, request_for(Method::kGet, "/dup")).body, "Hello, World!");
}

Reply list_items(Exchange&) { return {.body = "list"}; }
Reply create_item(Exchange&) { return {.status = Status::kNoContent, .body = "create"}; }
Reply delete_item(Exchange&) { return {.body = "delete"}; }

TEST(Router, MethodsOfOnePathCanBeSeparateRoutes) {
  Router router;
  router.add("/items", kGetOrHead, list_items);
  router.add("/items", method_bit(Method::kPost), create_item);
  EXPECT_EQ(route(router, request_for(Method::kGet, "/items")).body, "list");
  EXPECT_EQ(route(router, request_for(Method::kHead, "/items")).body, "list");
  Reply reply = route(router, request_for(Method::kPost, "/items"));
  EXPECT_EQ(reply.status, Status::kNoContent);
  EXPECT_EQ(reply.body, "create");
}

TEST(Router, Answers405OnlyWhenNoRouteOfThePathTakesTheMethod) {
  Router router;
  router.add("/items", kGetOrHead, list_items);
  router.add("/items", method_bit(Method::kPost), create_item);
  router.add("/items", method_bit(Method::kDelete), delete_item);
  EXPECT_EQ(route(router, request_for(Method::kDelete, "/items")).body, "delete");
  for (Method method : {Method::kPut, Method::kPatch, Method::kOptions, Method::kOther}) {
    Reply reply = route(router, request_for(method, "/items"));
    EXPECT_EQ(reply.status, Status::kMethodNotAllowed);
    EXPECT_EQ(reply.extra_headers, "Allow: GET, HEAD, POST, DELETE\r\n")
        << "Allow lists the union of the path's routes";
  }
}

TEST(Router, AllowIsTheUnionWhateverTheOrderRoutesWereAdded) {
  Router router;
  router.add("/items", method_bit(Method::kPut), created);
  router.add("/other", kGetOrHead, plaintext);
  router.add("/items", kGetOrHead, list_items);
  EXPECT_EQ(route(router, request_for(Method::kPost, "/items")).extra_headers,
            "Allow: GET, HEAD, PUT\r\n");
  // Another path keeps its own Allow.
  EXPECT_EQ(route(router, request_for(Method::kPost, "/other")).extra_headers,
            "Allow: GET, HEAD\r\n");
}

TEST(Router, OverlappingRoutesOfOnePathFirstTakerWins) {
  Router router;
  router.add("/items", method_bit(Method::kPost), create_item);
  router.add("/items", kGetOrHead | method_bit(Method::kPost), list_items);
  EXPECT_EQ(route(router, request_for(Method::kPost, "/items")).body, "create");
  EXPECT_EQ(route(router, request_for(Method::kGet, "/items")).body, "list");
}

Reply echo_params(Exchange& exchange) {
  // Two parameters joined into the worker-free scratch of a test: a static buffer is enough here.
  static std::string joined;
  joined = std::string(exchange.param(0)) + "|" + std::string(exchange.param(1));
  return {.body = joined};
}

TEST(Router, ParameterSegmentsMatchOneNonEmptySegmentEach) {
  Router router;
  router.add("/users/:id", kGetOrHead, echo_params);
  router.add("/a/:x/b/:y", kGetOrHead, echo_params);
  EXPECT_EQ(route(router, request_for(Method::kGet, "/users/42")).body, "42|");
  EXPECT_EQ(route(router, request_for(Method::kGet, "/a/1/b/two")).body, "1|two");
  for (std::string_view path : {"/users/", "/users", "/users/42/x", "/a/1/b/", "/a//b/2", "/userx/1"}) {
    EXPECT_EQ(route(router, request_for(Method::kGet, path)).status, Status::kNotFound) << path;
  }
  Reply wrong_method = route(router, request_for(Method::kPost, "/users/7"));
  EXPECT_EQ(wrong_method.status, Status::kMethodNotAllowed);
  EXPECT_EQ(wrong_method.extra_headers, "Allow: GET, HEAD\r\n");
}

TEST(Router, ExactRoutesAndParameterRoutesCoexist) {
  Router router;
  router.add("/users/me", kGetOrHead, plaintext);
  router.add("/users/:id", kGetOrHead, echo_params);
  EXPECT_EQ(route(router, request_for(Method::kGet, "/users/me")).body, "Hello, World!");
  EXPECT_EQ(route(router, request_for(Method::kGet, "/users/9")).body, "9|");
}

// The exact-path lookup must answer as a scan of every route in the order added would: a pattern
// added before an exact route of a path it matches comes first, for the handler, the 405's Allow
// and the parameters alike.
TEST(Router, PatternAddedBeforeAnExactPathItMatchesStillComesFirst) {
  Router router;
  router.add("/users/:id", method_bit(Method::kPost), echo_params);
  router.add("/users/me", kGetOrHead, plaintext);
  router.add("/users/:name", method_bit(Method::kDelete), echo_params);

  EXPECT_EQ(route(router, request_for(Method::kPost, "/users/me")).body, "me|");
  EXPECT_EQ(route(router, request_for(Method::kGet, "/users/me")).body, "Hello, World!");
  // Added after the exact route, the second pattern still answers the method only it takes.
  EXPECT_EQ(route(router, request_for(Method::kDelete, "/users/me")).body, "me|");

  const Reply wrong = route(router, request_for(Method::kPut, "/users/me"));
  EXPECT_EQ(wrong.status, Status::kMethodNotAllowed);
  EXPECT_EQ(wrong.extra_headers, "Allow: POST\r\n") << "the first matching route's Allow";
  EXPECT_EQ(route(router, request_for(Method::kPut, "/users/9")).extra_headers, "Allow: POST\r\n");
  EXPECT_EQ(route(router, request_for(Method::kGet, "/users/me/x")).status, Status::kNotFound);
}

TEST(Router, ExactPathWinnerHandsNoParameters) {
  Router router;
  router.add("/a/:x", method_bit(Method::kPost), echo_params);
  router.add("/a/b", kGetOrHead, echo_params);
  http::Request request = request_for(Method::kGet, "/a/b");
  Exchange exchange(request, nullptr, nullptr);
  EXPECT_EQ(router.route(exchange).body, "|");
  EXPECT_EQ(exchange.params.count, 0u);
}

TEST(Router, ManyExactPathsAreEachFound) {
  Router router;
  std::vector<std::string> paths;
  for (int i = 0; i < 200; ++i) paths.push_back("/p" + std::to_string(i * 7919 % 1000));
  for (const std::string& path : paths) router.add(path, kGetOrHead, echo_path);
  for (const std::string& path : paths) {
    EXPECT_EQ(route(router, request_for(Method::kGet, path)).body, path);
    EXPECT_EQ(route(router, request_for(Method::kGet, path + "x")).status, Status::kNotFound);
  }
  EXPECT_EQ(route(router, request_for(Method::kGet, "")).status, Status::kNotFound);
}

}  // namespace
}  // namespace ringside::server
