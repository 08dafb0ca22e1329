#include "load/resolve_url.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "core/resolve.hpp"

namespace ringside::load {
namespace {

// A blocking-with-a-bound connect, closed at once: does anything accept on this address?
bool accepts_connection(const core::SocketAddress& address, double timeout_s) {
  const int fd = ::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool connected = ::connect(fd, address.sockaddr_ptr(), address.length) == 0;
  if (!connected && errno == EINPROGRESS) {
    pollfd pending{fd, POLLOUT, 0};
    const int wait_ms = static_cast<int>(std::ceil(timeout_s * 1000));
    int ready = 0;
    do {
      ready = ::poll(&pending, 1, wait_ms);
    } while (ready < 0 && errno == EINTR);
    int error = 0;
    socklen_t length = sizeof error;
    connected = ready == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
  }
  ::close(fd);
  return connected;
}

}  // namespace

const core::SocketAddress& first_accepting(const std::vector<core::SocketAddress>& addresses,
                                           double connect_timeout_s) {
  if (addresses.size() > 1) {
    for (const core::SocketAddress& address : addresses) {
      if (accepts_connection(address, connect_timeout_s)) return address;
    }
  }
  return addresses.front();
}

std::string resolve_targets(std::vector<Target>& targets, double connect_timeout_s,
                            std::size_t& failed) {
  struct Choice {
    std::vector<core::SocketAddress> addresses;
    core::SocketAddress chosen;
  };
  std::map<std::pair<std::string, std::uint16_t>, Choice> choices;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    Url& url = targets[i].url;
    if (!url.is_name()) continue;
    auto [it, is_new] = choices.try_emplace({url.host, url.port});
    if (is_new) {
      core::Resolution resolution = core::resolve_host(url.host, url.port);
      if (!resolution.error.empty()) {
        failed = i;
        return resolution.error;
      }
      it->second.chosen = first_accepting(resolution.addresses, connect_timeout_s);
      it->second.addresses = std::move(resolution.addresses);
    }
    url.resolved = it->second.addresses;
    url.address = it->second.chosen.storage;
    url.address_length = it->second.chosen.length;
  }
  return "";
}

std::string describe_resolution(const Url& url) {
  if (url.resolved.empty()) return "";
  std::string text = url.host + " resolved to ";
  for (std::size_t i = 0; i < url.resolved.size(); ++i) {
    text += (i == 0 ? "" : ", ") + core::address_text(url.resolved[i]);
  }
  return text + "; connections go to " + used_address_text(url);
}

std::string used_address_text(const Url& url) {
  core::SocketAddress used;
  used.storage = url.address;
  used.length = url.address_length;
  return core::address_text(used);
}

}  // namespace ringside::load
