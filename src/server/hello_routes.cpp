#include "server/hello_routes.hpp"

#include "http/json_writer.hpp"

namespace ringside::server {

void add_hello_routes(Router& router) {
  router.add("/", kGetOrHead, [](Exchange&) {
    return Reply{http::Status::kOk, "text/plain", "Hello World!", {}};
  });
  router.add("/plaintext", kGetOrHead, [](Exchange&) {
    return Reply{http::Status::kOk, "text/plain", "Hello, World!", {}};
  });
  // TechEmpower's json test: the object is serialised per request, not sent as a constant.
  router.add("/json", kGetOrHead, [](Exchange& exchange) {
    http::OutBuffer& body = exchange.body();
    body.append(R"({"message":)");
    (void)http::append_json_string(body, "Hello, World!");  // 15 bytes into 8 KiB
    body.append("}");
    return Reply{http::Status::kOk, "application/json", body.view(), {}};
  });
  router.add("/health", kGetOrHead, [](Exchange&) {
    return Reply{http::Status::kOk, "text/plain", "ok\n", {}};
  });
}

}  // namespace ringside::server
