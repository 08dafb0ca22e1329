// The floor: the least an HTTP server can do per keep-alive request on this kernel. A single
// level-triggered epoll loop that reads, counts request ends ("\r\n\r\n") and sends that many
// canned responses in one send; no parsing, no timers, no Date. Not a server anyone should run:
// it is the yardstick bench/e2e/hello.sh measures CPU per request against.
//
//   cc -O2 -o floor floor.c && ./floor PORT
#define _GNU_SOURCE  // accept4
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static const char kResponse[] =
    "HTTP/1.1 200 OK\r\nServer: floor\r\nDate: Mon, 30 Nov 2026 00:00:00 GMT\r\n"
    "Content-Type: text/plain\r\nContent-Length: 12\r\n\r\nHello World!";

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PORT\n", argv[0]);
    return 2;
  }
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1]))};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, (struct sockaddr*)&addr, sizeof addr) != 0 || listen(listener, 65535) != 0) {
    perror("bind/listen");
    return 1;
  }
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  static struct epoll_event events[512];
  static char in[16384];
  static char out[sizeof kResponse * 512];
  const size_t response_length = sizeof kResponse - 1;
  for (;;) {
    int n = epoll_wait(ep, events, 512, -1);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
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
      // Request ends in this read; a request cut across two reads is answered late, which a
      // yardstick under wrk's whole-request writes never sees.
      size_t ends = 0;
      for (ssize_t j = 3; j < got; ++j) {
        if (in[j] == '\n' && in[j - 1] == '\r' && in[j - 2] == '\n' && in[j - 3] == '\r') ++ends;
      }
      if (ends > 512) ends = 512;
      for (size_t k = 0; k < ends; ++k) memcpy(out + k * response_length, kResponse, response_length);
      if (ends > 0) send(fd, out, ends * response_length, MSG_NOSIGNAL);
    }
  }
}
