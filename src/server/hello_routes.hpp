// The hello-world routes: the seeds' `GET /`, TechEmpower's plaintext and json, and the health
// check the harness waits on.
#pragma once

#include "server/router.hpp"

namespace ringside::server {

void add_hello_routes(Router& router);

}  // namespace ringside::server
