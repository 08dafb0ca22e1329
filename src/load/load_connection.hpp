// What a load worker's loop drives in each of its connections, whatever the protocol: the
// HTTP/1.1 ClientConnection (load/client_connection.hpp) or the HTTP/2 H2ClientConnection
// (load/h2_client_connection.hpp). The loop hears the socket through core::TransportHandler,
// expires timers through core::TimerNode and fires -R sends through ScheduledSender, then calls
// the connection back through these four.
#pragma once

#include "core/timer_list.hpp"
#include "core/transport.hpp"
#include "load/worker_context.hpp"

namespace ringside::load {

class LoadConnection : public core::TransportHandler,
                       public core::TimerNode,
                       public ScheduledSender {
 public:
  virtual void start() = 0;     // opens the first connection
  virtual void on_timer() = 0;  // its request or connect timeout, or its reconnect back-off
  virtual void on_due() = 0;    // a scheduled -R send time arrived
  // The run is over: requests still out are counted as in flight, the socket closed.
  virtual void abandon() = 0;

 protected:
  LoadConnection() = default;
  ~LoadConnection() = default;
};

}  // namespace ringside::load
