// Per-worker state that a family of routes owns (a database client, its request contexts), made
// once per worker by a factory given to the Server and reached by handlers through
// Exchange::extension(). The server knows nothing of what is inside: it drives the extension as a
// participant of the worker's loop (core/loop_participant.hpp) and destroys it, on the worker's
// thread's owner, before the worker's pools, so that answers still in flight can give their
// PendingReplies back.
//
//   Server server(config, router, [&](core::EventLoop& loop, unsigned worker) {
//     return std::make_unique<DatabaseRoutes>(loop, ...);
//   });
//   Reply user(Exchange& exchange) { auto& routes = static_cast<DatabaseRoutes&>(*exchange.extension()); ... }
#pragma once

#include <functional>
#include <memory>

#include "core/event_loop.hpp"
#include "core/loop_participant.hpp"

namespace ringside::server {

class WorkerExtension : public core::LoopParticipant {};

// Called on the thread that constructs the Server, once per worker (index 0..threads-1); may
// throw (the Server's constructor then throws the same exception).
using ExtensionFactory =
    std::function<std::unique_ptr<WorkerExtension>(core::EventLoop& loop, unsigned worker_index)>;

}  // namespace ringside::server
