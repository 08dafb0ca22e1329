// Byte counts and copies over a write's parts (iovecs), for the transports that keep what the
// kernel did not take: EpollTransport (the socket's unsent bytes) and TlsLayer (plaintext not yet
// encrypted).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstring>
#include <span>

namespace ringside::core {

inline std::size_t total_bytes(std::span<const iovec> parts) {
  std::size_t total = 0;
  for (const iovec& part : parts) total += part.iov_len;
  return total;
}

// Copies the parts' bytes after the first `skip` of them to `to`; returns how many it copied.
inline std::size_t copy_after(std::span<const iovec> parts, std::size_t skip, char* to) {
  std::size_t copied = 0;
  for (const iovec& part : parts) {
    if (skip >= part.iov_len) {
      skip -= part.iov_len;
      continue;
    }
    const std::size_t take = part.iov_len - skip;
    std::memcpy(to + copied, static_cast<const char*>(part.iov_base) + skip, take);
    copied += take;
    skip = 0;
  }
  return copied;
}

}  // namespace ringside::core
