// The least a loader can spend per request on loopback: a ping-pong client with nothing but the
// system calls (no parsing, no histogram), with epoll or with io_uring (multishot receives into a
// provided-buffer ring, sends queued and submitted once per loop turn, DEFER_TASKRUN). Measures
// its own CPU per request, to tell whether another I/O interface would give ringside load
// headroom over a server that is as cheap as it is (issue 19). Used by bench/repeatability/loader_floor.
//
//   loader_floor PORT CONNECTIONS epoll|uring SECONDS
//
// Counts a response per receive: only right for small responses (hello), which is all it is for.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char kRequest[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
enum { kMaxConnections = 16384, kBuffers = 4096, kBufferBytes = 4096, kGroup = 1 };
enum { kRecv = 1, kSend = 2 };

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

static long run_epoll(const int* fds, int connections, double until) {
  int ep = epoll_create1(0);
  for (int i = 0; i < connections; i++) {
    struct epoll_event e = {.events = EPOLLIN | EPOLLET, .data.u32 = (unsigned)i};
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
    send(fds[i], kRequest, sizeof kRequest - 1, MSG_NOSIGNAL);
  }
  static struct epoll_event events[512];
  static char buffer[65536];
  long responses = 0;
  while (seconds_now() < until) {
    int n = epoll_wait(ep, events, 512, 100);
    for (int k = 0; k < n; k++) {
      int fd = fds[events[k].data.u32];
      if (recv(fd, buffer, sizeof buffer, 0) > 0) {
        responses++;
        send(fd, kRequest, sizeof kRequest - 1, MSG_NOSIGNAL);
      }
    }
  }
  return responses;
}

static struct io_uring_sqe* next_sqe(struct io_uring* ring) {
  struct io_uring_sqe* sqe = io_uring_get_sqe(ring);
  if (sqe == NULL) {
    io_uring_submit(ring);
    sqe = io_uring_get_sqe(ring);
  }
  return sqe;
}

static void queue_recv(struct io_uring* ring, int fd, int index) {
  struct io_uring_sqe* sqe = next_sqe(ring);
  io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kGroup;
  io_uring_sqe_set_data64(sqe, ((unsigned long long)kRecv << 32) | (unsigned)index);
}

static void queue_send(struct io_uring* ring, int fd, int index) {
  struct io_uring_sqe* sqe = next_sqe(ring);
  io_uring_prep_send(sqe, fd, kRequest, sizeof kRequest - 1, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, ((unsigned long long)kSend << 32) | (unsigned)index);
}

static long run_uring(const int* fds, int connections, double until) {
  struct io_uring ring;
  struct io_uring_params params = {0};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
  params.cq_entries = 4 * kMaxConnections;
  if (io_uring_queue_init_params(4096, &ring, &params) != 0) {
    fprintf(stderr, "loader_floor: io_uring_queue_init_params failed\n");
    exit(1);
  }
  struct io_uring_buf_ring* buffer_ring;
  if (posix_memalign((void**)&buffer_ring, 4096, kBuffers * sizeof(struct io_uring_buf)) != 0) exit(1);
  char* buffers = malloc((size_t)kBuffers * kBufferBytes);
  struct io_uring_buf_reg registration = {
      .ring_addr = (unsigned long)buffer_ring, .ring_entries = kBuffers, .bgid = kGroup};
  if (io_uring_register_buf_ring(&ring, &registration, 0) != 0) {
    fprintf(stderr, "loader_floor: io_uring_register_buf_ring failed\n");
    exit(1);
  }
  const int mask = io_uring_buf_ring_mask(kBuffers);
  io_uring_buf_ring_init(buffer_ring);
  for (int i = 0; i < kBuffers; i++) {
    io_uring_buf_ring_add(buffer_ring, buffers + (size_t)i * kBufferBytes, kBufferBytes, i, mask, i);
  }
  io_uring_buf_ring_advance(buffer_ring, kBuffers);
  for (int i = 0; i < connections; i++) {
    queue_recv(&ring, fds[i], i);
    queue_send(&ring, fds[i], i);
  }
  long responses = 0;
  struct __kernel_timespec wait = {0, 100000000};
  while (seconds_now() < until) {
    struct io_uring_cqe* cqe;
    io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &wait, NULL);
    unsigned head, seen = 0, returned = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      seen++;
      const int index = (int)(cqe->user_data & 0xffffffffu);
      if ((cqe->user_data >> 32) != kRecv) continue;
      if (cqe->res > 0) {
        const int id = (int)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        io_uring_buf_ring_add(buffer_ring, buffers + (size_t)id * kBufferBytes, kBufferBytes, id,
                              mask, (int)returned++);
        responses++;
        queue_send(&ring, fds[index], index);
      }
      if (!(cqe->flags & IORING_CQE_F_MORE) && cqe->res != 0) queue_recv(&ring, fds[index], index);
    }
    io_uring_buf_ring_advance(buffer_ring, (int)returned);
    io_uring_cq_advance(&ring, seen);
  }
  return responses;
}

int main(int argc, char** argv) {
  if (argc != 5 || (strcmp(argv[3], "epoll") != 0 && strcmp(argv[3], "uring") != 0)) {
    fprintf(stderr, "usage: loader_floor PORT CONNECTIONS epoll|uring SECONDS\n");
    return 2;
  }
  const int port = atoi(argv[1]);
  const int connections = atoi(argv[2]);
  const double duration = atof(argv[4]);
  if (connections < 1 || connections > kMaxConnections) {
    fprintf(stderr, "loader_floor: CONNECTIONS must be 1-%d\n", kMaxConnections);
    return 2;
  }
  static int fds[kMaxConnections];
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < connections; i++) {
    const int one = 1;
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fds[i], (struct sockaddr*)&address, sizeof address) != 0) {
      perror("loader_floor: connect");
      return 1;
    }
  }
  const double start = seconds_now();
  const double cpu_start = cpu_seconds();
  const long responses = strcmp(argv[3], "epoll") == 0
                             ? run_epoll(fds, connections, start + duration)
                             : run_uring(fds, connections, start + duration);
  const double elapsed = seconds_now() - start;
  const double cpu = cpu_seconds() - cpu_start;
  printf("%s c=%d: %.0f requests/s, %.2f us of CPU per request (%.0f%% of a core)\n", argv[3],
         connections, (double)responses / elapsed, cpu / (double)responses * 1e6,
         100.0 * cpu / elapsed);
  return 0;
}
