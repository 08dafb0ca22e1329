#include "server/router.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace ringside::server {
namespace {

using http::Method;
using http::Status;

Reply plaintext(const http::Request&) { return {.body = "Hello, World!"}; }
Reply json(const http::Request&) {
  return {.content_type = "application/json", .body = R"({"message":"Hello, World!"})"};
}
Reply echo_path(const http::Request& request) { return {.body = request.path}; }
Reply created(const http::Request&) { return {.status = Status::kNoContent}; }

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
  Reply reply = router.route(request_for(Method::kGet, "/plaintext"));
  EXPECT_EQ(reply.status, Status::kOk);
  EXPECT_EQ(reply.content_type, "text/plain");
  EXPECT_EQ(reply.body, "Hello, World!");
  EXPECT_TRUE(reply.extra_headers.empty());

  reply = router.route(request_for(Method::kGet, "/json"));
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_EQ(reply.body, R"({"message":"Hello, World!"})");
}

TEST(Router, HeadIsRoutedLikeGet) {
  Router router = hello_router();
  Reply reply = router.route(request_for(Method::kHead, "/plaintext"));
  EXPECT_EQ(reply.status, Status::kOk);
  EXPECT_EQ(reply.body, "Hello, World!");
}

TEST(Router, QueryIsIgnored) {
  http::Request request = request_for(Method::kGet, "/echo");
  request.target = "/echo?name=value&x=1";
  request.query = "name=value&x=1";
  Router router = hello_router();
  Reply reply = router.route(request);
  EXPECT_EQ(reply.status, Status::kOk);
  EXPECT_EQ(reply.body, "/echo");
}

TEST(Router, MatchIsExactNotPrefixOrCaseInsensitive) {
  Router router = hello_router();
  for (std::string_view path : {"/plaintext/", "/plaintextx", "/plain", "/PLAINTEXT", "", "/"}) {
    Reply reply = router.route(request_for(Method::kGet, path));
    EXPECT_EQ(reply.status, Status::kNotFound) << "path '" << path << "'";
  }
}

TEST(Router, UnknownPathIs404) {
  Router router = hello_router();
  Reply reply = router.route(request_for(Method::kGet, "/missing"));
  EXPECT_EQ(reply.status, Status::kNotFound);
  EXPECT_EQ(reply.content_type, "text/plain");
  EXPECT_FALSE(reply.body.empty());
  EXPECT_EQ(reply.body.back(), '\n');
  EXPECT_TRUE(reply.extra_headers.empty());
}

TEST(Router, WrongMethodIs405WithAllow) {
  Router router = hello_router();
  for (Method method : {Method::kPost, Method::kPut, Method::kDelete, Method::kOther}) {
    Reply reply = router.route(request_for(method, "/plaintext"));
    EXPECT_EQ(reply.status, Status::kMethodNotAllowed);
    EXPECT_EQ(reply.extra_headers, "Allow: GET, HEAD\r\n");
    EXPECT_FALSE(reply.body.empty());
  }
}

TEST(Router, AllowListsTheRouteMethodsInOrder) {
  Router router = hello_router();  // the Allow header lives in the router
  Reply reply = router.route(request_for(Method::kGet, "/items"));
  EXPECT_EQ(reply.status, Status::kMethodNotAllowed);
  EXPECT_EQ(reply.extra_headers, "Allow: POST, PUT\r\n");

  reply = router.route(request_for(Method::kPut, "/items"));
  EXPECT_EQ(reply.status, Status::kNoContent);
}

TEST(Router, EmptyRouterAnswers404) {
  Router router;
  EXPECT_EQ(router.route(request_for(Method::kGet, "/")).status, Status::kNotFound);
}

TEST(Router, FirstMatchingRouteWins) {
  Router router;
  router.add("/dup", kGetOrHead, plaintext);
  router.add("/dup", kGetOrHead, json);
  EXPECT_EQ(router.route(request_for(Method::kGet, "/dup")).body, "Hello, World!");
}

Reply list_items(const http::Request&) { return {.body = "list"}; }
Reply create_item(const http::Request&) { return {.status = Status::kNoContent, .body = "create"}; }
Reply delete_item(const http::Request&) { return {.body = "delete"}; }

TEST(Router, MethodsOfOnePathCanBeSeparateRoutes) {
  Router router;
  router.add("/items", kGetOrHead, list_items);
  router.add("/items", method_bit(Method::kPost), create_item);
  EXPECT_EQ(router.route(request_for(Method::kGet, "/items")).body, "list");
  EXPECT_EQ(router.route(request_for(Method::kHead, "/items")).body, "list");
  Reply reply = router.route(request_for(Method::kPost, "/items"));
  EXPECT_EQ(reply.status, Status::kNoContent);
  EXPECT_EQ(reply.body, "create");
}

TEST(Router, Answers405OnlyWhenNoRouteOfThePathTakesTheMethod) {
  Router router;
  router.add("/items", kGetOrHead, list_items);
  router.add("/items", method_bit(Method::kPost), create_item);
  router.add("/items", method_bit(Method::kDelete), delete_item);
  EXPECT_EQ(router.route(request_for(Method::kDelete, "/items")).body, "delete");
  for (Method method : {Method::kPut, Method::kPatch, Method::kOptions, Method::kOther}) {
    Reply reply = router.route(request_for(method, "/items"));
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
  EXPECT_EQ(router.route(request_for(Method::kPost, "/items")).extra_headers,
            "Allow: GET, HEAD, PUT\r\n");
  // Another path keeps its own Allow.
  EXPECT_EQ(router.route(request_for(Method::kPost, "/other")).extra_headers,
            "Allow: GET, HEAD\r\n");
}

TEST(Router, OverlappingRoutesOfOnePathFirstTakerWins) {
  Router router;
  router.add("/items", method_bit(Method::kPost), create_item);
  router.add("/items", kGetOrHead | method_bit(Method::kPost), list_items);
  EXPECT_EQ(router.route(request_for(Method::kPost, "/items")).body, "create");
  EXPECT_EQ(router.route(request_for(Method::kGet, "/items")).body, "list");
}

}  // namespace
}  // namespace ringside::server
