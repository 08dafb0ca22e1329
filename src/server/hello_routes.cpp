#include "server/hello_routes.hpp"

namespace ringside::server {

void add_hello_routes(Router& router) {
  router.add("/", kGetOrHead, [](Exchange&) {
    return Reply{http::Status::kOk, "text/plain", "Hello World!", {}};
  });
  router.add("/plaintext", kGetOrHead, [](Exchange&) {
    return Reply{http::Status::kOk, "text/plain", "Hello, World!", {}};
  });
  router.add("/json", kGetOrHead, [](Exchange&) {
    return Reply{http::Status::kOk, "application/json", R"({"message":"Hello, World!"})", {}};
  });
  router.add("/health", kGetOrHead, [](Exchange&) {
    return Reply{http::Status::kOk, "text/plain", "ok\n", {}};
  });
}

}  // namespace ringside::server
