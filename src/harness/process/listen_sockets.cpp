#include "harness/process/listen_sockets.hpp"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "harness/process/proc_text.hpp"

namespace ringside::harness {
namespace {

// SK_MEMINFO_DROPS of a reply's INET_DIAG_SKMEMINFO attribute; 0 when it has none.
std::uint64_t drops_of(const nlmsghdr* header, const inet_diag_msg* message) {
  int attributes = static_cast<int>(header->nlmsg_len - NLMSG_LENGTH(sizeof *message));
  for (auto* attribute = reinterpret_cast<const rtattr*>(message + 1); RTA_OK(attribute, attributes);
       attribute = RTA_NEXT(attribute, attributes)) {
    if (attribute->rta_type != INET_DIAG_SKMEMINFO) continue;
    if (RTA_PAYLOAD(attribute) < (SK_MEMINFO_DROPS + 1) * sizeof(std::uint32_t)) continue;
    std::uint32_t values[SK_MEMINFO_DROPS + 1];
    std::memcpy(values, RTA_DATA(attribute), sizeof values);
    return values[SK_MEMINFO_DROPS];
  }
  return 0;
}

// Sends the dump request for one family's listeners; false when the socket refused it.
bool ask_listeners(int fd, int family) {
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } query{};
  query.header.nlmsg_len = sizeof query;
  query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  query.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  query.request.sdiag_family = static_cast<std::uint8_t>(family);
  query.request.sdiag_protocol = IPPROTO_TCP;
  query.request.idiag_ext = 1 << (INET_DIAG_SKMEMINFO - 1);
  query.request.idiag_states = 1 << TCP_LISTEN;
  return send(fd, &query, sizeof query, 0) == static_cast<ssize_t>(sizeof query);
}

// Reads one family's dump to its end; false on an error.
bool read_listeners(int fd, int port, std::vector<ListenSocket>& out) {
  bool done = false, error = false;
  alignas(nlmsghdr) std::array<char, 32 * 1024> buffer;
  while (!done && !error) {
    const ssize_t got = recv(fd, buffer.data(), buffer.size(), 0);
    if (got <= 0) return false;
    parse_listen_sockets(buffer.data(), static_cast<std::size_t>(got), port, out, done, error);
  }
  return !error;
}

}  // namespace

void parse_listen_sockets(const void* data, std::size_t length, int port,
                          std::vector<ListenSocket>& out, bool& done, bool& error) {
  int remaining = static_cast<int>(length);
  for (auto* header = static_cast<const nlmsghdr*>(data); NLMSG_OK(header, remaining);
       header = NLMSG_NEXT(header, remaining)) {
    if (header->nlmsg_type == NLMSG_DONE) {
      done = true;
      return;
    }
    if (header->nlmsg_type == NLMSG_ERROR) {
      error = true;
      return;
    }
    if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY) continue;
    if (header->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) continue;
    const auto* message = static_cast<const inet_diag_msg*>(NLMSG_DATA(header));
    if (ntohs(message->id.idiag_sport) != port) continue;
    ListenSocket socket;
    socket.port = port;
    socket.ipv6 = message->idiag_family == AF_INET6;
    socket.backlog = message->idiag_wqueue;
    socket.queued = message->idiag_rqueue;
    socket.drops = drops_of(header, message);
    out.push_back(socket);
  }
}

std::optional<std::vector<ListenSocket>> listen_sockets(int port) {
  const int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return std::nullopt;
  std::vector<ListenSocket> found;
  bool ok = true;
  for (const int family : {AF_INET, AF_INET6}) {
    if (!ask_listeners(fd, family) || !read_listeners(fd, port, found)) {
      ok = false;
      break;
    }
  }
  close(fd);
  if (!ok) return std::nullopt;
  return found;
}

std::optional<unsigned> parse_somaxconn(std::string_view text) {
  const std::vector<std::string_view> fields = split_fields(text);
  unsigned value = 0;
  if (fields.size() != 1 || !parse_field(fields[0], value)) return std::nullopt;
  return value;
}

std::optional<unsigned> read_somaxconn() {
  return parse_somaxconn(read_text("/proc/sys/net/core/somaxconn"));
}

}  // namespace ringside::harness
