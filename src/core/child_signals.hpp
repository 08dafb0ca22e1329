// For a child between fork and exec: undo what our processes do to signals (they block their
// shutdown signals to take them with sigwait, and ignore SIGPIPE), so the program it runs gets
// the defaults it expects (PostgreSQL's fast shutdown waits forever on a blocked SIGINT; a server
// expects SIGPIPE's default). Async-signal-safe: fine in a child of a threaded process.
#pragma once

#include <signal.h>

namespace ringside::core {

inline void restore_default_signals() noexcept {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &default_action, nullptr);
}

}  // namespace ringside::core
