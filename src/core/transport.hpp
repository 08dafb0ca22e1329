// Where the transport backend is chosen, in one place. Protocol code names core::Transport and
// codes against the contract in core/transport_handler.hpp; an io_uring twin of EpollTransport
// (completion-style, same contract) would be selected here.
#pragma once

#include "core/epoll_transport.hpp"
#include "core/transport_handler.hpp"

namespace ringside::core {

using Transport = EpollTransport;

}  // namespace ringside::core
