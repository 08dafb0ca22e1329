// The floor: the least an HTTP server can do per keep-alive request on this kernel, the yardstick
// `ringside compare` measures CPU per request against (scenarios/hello.toml). A single
// level-triggered epoll loop that reads, counts request ends ("\r\n\r\n", tracked across reads so
// a request split over segments is answered too) and sends that many canned responses in one
// send; no parsing, no timers, no real Date (a fixed valid one). Not a server anyone should run.
//
//   cc -O2 -o build/floor floor.c && build/floor PORT [HOST]   (HOST: an IPv4 or IPv6 literal)
#define _GNU_SOURCE  // accept4
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static const char kResponse[] =
    "HTTP/1.1 200 OK\r\nServer: floor\r\nDate: Mon, 30 Nov 2026 00:00:00 GMT\r\n"
    "Content-Type: text/plain\r\nContent-Length: 12\r\n\r\nHello World!";

enum { kMaxBatch = 512 };

// Per descriptor: how much of "\r\n\r\n" the bytes read so far end with (0..3).
static unsigned char* matched;
static size_t matched_size;

static void grow_matched(int fd) {
  if ((size_t)fd < matched_size) return;
  size_t size = matched_size ? matched_size : 1024;
  while (size <= (size_t)fd) size *= 2;
  matched = realloc(matched, size);
  if (matched == NULL) {
    perror("realloc");
    exit(1);
  }
  memset(matched + matched_size, 0, size - matched_size);
  matched_size = size;
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s PORT [HOST]\n", argv[0]);
    return 2;
  }
  // The address to listen on: {host} (127.0.0.1 without one), v4 or v6.
  const char* host = argc == 3 ? argv[2] : "127.0.0.1";
  const unsigned short port = htons((unsigned short)atoi(argv[1]));
  struct sockaddr_in6 addr6 = {.sin6_family = AF_INET6, .sin6_port = port};
  struct sockaddr_in addr4 = {.sin_family = AF_INET, .sin_port = port};
  const int v6 = strchr(host, ':') != NULL;
  const int parsed =
      v6 ? inet_pton(AF_INET6, host, &addr6.sin6_addr) : inet_pton(AF_INET, host, &addr4.sin_addr);
  if (parsed != 1) {
    fprintf(stderr, "%s: HOST must be an IPv4 or IPv6 address, not '%s'\n", argv[0], host);
    return 2;
  }
  // Room for the 10,000-connection point.
  struct rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  int listener = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr* addr = v6 ? (struct sockaddr*)&addr6 : (struct sockaddr*)&addr4;
  const socklen_t addr_size = v6 ? sizeof addr6 : sizeof addr4;
  if (bind(listener, addr, addr_size) != 0 || listen(listener, 65535) != 0) {
    perror("bind/listen");
    return 1;
  }
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  static struct epoll_event events[512];
  static char in[16384];
  static char out[sizeof kResponse * kMaxBatch];
  static const char kEnd[4] = {'\r', '\n', '\r', '\n'};
  const size_t response_length = sizeof kResponse - 1;
  for (;;) {
    int n = epoll_wait(ep, events, 512, -1);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          grow_matched(client);
          matched[client] = 0;
          struct epoll_event cev = {.events = EPOLLIN, .data.fd = client};
          epoll_ctl(ep, EPOLL_CTL_ADD, client, &cev);
        }
        continue;
      }
      ssize_t got = recv(fd, in, sizeof in, 0);
      if (got <= 0) {
        close(fd);
        continue;
      }
      size_t ends = 0;
      unsigned state = matched[fd];
      for (ssize_t j = 0; j < got; ++j) {
        if (in[j] == kEnd[state]) {
          if (++state == 4) {
            ++ends;
            state = 0;
          }
        } else {
          state = in[j] == '\r' ? 1 : 0;
        }
      }
      matched[fd] = (unsigned char)state;
      while (ends > 0) {
        size_t batch = ends > kMaxBatch ? kMaxBatch : ends;
        for (size_t k = 0; k < batch; ++k) memcpy(out + k * response_length, kResponse, response_length);
        send(fd, out, batch * response_length, MSG_NOSIGNAL);
        ends -= batch;
      }
    }
  }
}
