#include "core/resolve.hpp"

#include <ares.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "core/socket.hpp"

namespace ringside::core {
namespace {

constexpr std::string_view kWhatToDo =
    "check the name, /etc/hosts or /etc/resolv.conf, or give an IP address";

struct Lookup {
  bool done = false;
  int status = ARES_SUCCESS;
  std::vector<SocketAddress> addresses;
};

bool same_address(const SocketAddress& a, const SocketAddress& b) {
  return a.length == b.length && std::memcmp(&a.storage, &b.storage, a.length) == 0;
}

void on_addrinfo(void* arg, int status, int /*timeouts*/, ares_addrinfo* result) {
  auto& lookup = *static_cast<Lookup*>(arg);
  lookup.done = true;
  lookup.status = status;
  if (result == nullptr) return;
  for (const ares_addrinfo_node* node = result->nodes; node != nullptr; node = node->ai_next) {
    if (node->ai_family != AF_INET && node->ai_family != AF_INET6) continue;
    SocketAddress address;
    address.length = static_cast<socklen_t>(std::min<std::size_t>(node->ai_addrlen, sizeof address.storage));
    std::memcpy(&address.storage, node->ai_addr, address.length);
    // /etc/hosts may list an address twice, and the answer may hold it for each socket type.
    if (std::none_of(lookup.addresses.begin(), lookup.addresses.end(),
                     [&](const SocketAddress& seen) { return same_address(seen, address); })) {
      lookup.addresses.push_back(address);
    }
  }
  ares_freeaddrinfo(result);
}

// Drives the channel until the callback ran or the deadline passed (then cancels the query,
// which runs the callback with ARES_ECANCELLED).
void wait_for(ares_channel channel, Lookup& lookup, double timeout_s) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  while (!lookup.done) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      ares_cancel(channel);
      return;
    }
    ares_socket_t sockets[ARES_GETSOCK_MAXNUM];
    const int mask = ares_getsock(channel, sockets, ARES_GETSOCK_MAXNUM);
    pollfd fds[ARES_GETSOCK_MAXNUM];
    nfds_t count = 0;
    for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
      short events = 0;
      if (ARES_GETSOCK_READABLE(mask, i)) events |= POLLIN;
      if (ARES_GETSOCK_WRITABLE(mask, i)) events |= POLLOUT;
      if (events != 0) fds[count++] = pollfd{sockets[i], events, 0};
    }
    timeval max_wait{left.count() / 1000, static_cast<long>(left.count() % 1000) * 1000};
    timeval wait{};
    const timeval* next = ares_timeout(channel, &max_wait, &wait);
    const int wait_ms = static_cast<int>(next->tv_sec * 1000 + (next->tv_usec + 999) / 1000);
    if (::poll(fds, count, wait_ms) < 0 && errno != EINTR) {
      ares_cancel(channel);
      return;
    }
    bool any = false;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      any = true;
      const bool readable = (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0;
      ares_process_fd(channel, readable ? fds[i].fd : ARES_SOCKET_BAD,
                      (fds[i].revents & POLLOUT) != 0 ? fds[i].fd : ARES_SOCKET_BAD);
    }
    if (!any) ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // timeouts, retries
  }
}

void set_port(SocketAddress& address, std::uint16_t port) {
  if (address.storage.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in&>(address.storage).sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6&>(address.storage).sin6_port = htons(port);
  }
}

std::string failure(const std::string& host, const std::string& reason) {
  return "cannot resolve " + host + " (" + reason + "): " + std::string(kWhatToDo);
}

}  // namespace

std::string address_text(const SocketAddress& address) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.storage.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr, text,
              sizeof text);
  } else if (address.storage.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&address.storage)->sin6_addr, text,
              sizeof text);
  }
  return text;
}

bool is_host_name(std::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  if (host.empty() || host.size() > 253) return false;
  std::string_view last_label;
  while (true) {
    const std::size_t dot = host.find('.');
    const std::string_view label = host.substr(0, dot);
    if (label.empty() || label.size() > 63) return false;
    for (char c : label) {
      if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_') return false;
    }
    last_label = label;
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
  }
  return !std::all_of(last_label.begin(), last_label.end(),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

Resolution resolve_host(const std::string& host, std::uint16_t port, double timeout_s) {
  Resolution resolution;
  SocketAddress literal;
  if (parse_address(host, port, literal.storage, literal.length)) {
    resolution.addresses.push_back(literal);
    return resolution;
  }
  if (!is_host_name(host)) {
    resolution.error = "not an IP address or a host name: " + host;
    return resolution;
  }
  if (int status = ares_library_init(ARES_LIB_INIT_ALL); status != ARES_SUCCESS) {
    resolution.error = failure(host, ares_strerror(status));
    return resolution;
  }
  ares_channel channel = nullptr;
  if (int status = ares_init(&channel); status != ARES_SUCCESS) {
    ares_library_cleanup();
    resolution.error = failure(host, ares_strerror(status));
    return resolution;
  }
  Lookup lookup;
  ares_addrinfo_hints hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  // No service: c-ares refuses port 0 (serve --port 0) as one; the port is set below instead.
  ares_getaddrinfo(channel, host.c_str(), nullptr, &hints, on_addrinfo, &lookup);
  wait_for(channel, lookup, timeout_s);
  ares_destroy(channel);
  ares_library_cleanup();
  // Cancelled at the deadline, or still pending when the channel went (ares_destroy answers it).
  if (lookup.status == ARES_ECANCELLED || lookup.status == ARES_EDESTRUCTION) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
    resolution.error = failure(host, std::string("no answer within ") + seconds + " s");
  } else if (lookup.status != ARES_SUCCESS) {
    resolution.error = failure(host, ares_strerror(lookup.status));
  } else if (lookup.addresses.empty()) {
    resolution.error = failure(host, "it has no IPv4 or IPv6 address");
  } else {
    resolution.addresses = std::move(lookup.addresses);
    for (SocketAddress& address : resolution.addresses) set_port(address, port);
  }
  return resolution;
}

}  // namespace ringside::core
