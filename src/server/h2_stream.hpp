// One HTTP/2 request stream of a server connection (server/h2_connection.hpp): the request's head
// while it is read, then the response body while it is sent. Pooled by the worker: a stream costs
// nothing from the heap in steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ringside::server {

class PendingReply;

struct H2Stream {
  std::int32_t id = 0;
  // The request's fields, copied as they arrive into `head_block` (the codec's bytes are gone once
  // a field has been handed over), each as a 2-byte name length, a 2-byte value length, the name
  // and the value; read back into a http::Request when the request is routed.
  char* head_block = nullptr;
  std::uint32_t head_used = 0;
  bool head_too_large = false;  // a field did not fit: answered 431
  bool head_invalid = false;    // no :method or :path, or a field the request cannot hold: 400
  bool routed = false;
  bool head_only = false;  // HEAD: the answer's fields without its body
  bool reset_after_answer = false;
  std::uint64_t body_received = 0;

  // The response body, sent as the peer's window allows: either in `body_block` (a body built for
  // this request, copied) or in a parked request's answer (`pending`).
  std::string_view body;
  std::size_t body_sent = 0;
  char* body_block = nullptr;
  PendingReply* pending = nullptr;

  // In the connection's list of open streams; next_free also links the pool's free list.
  H2Stream* next_free = nullptr;
  H2Stream* prev_open = nullptr;
  H2Stream* next_open = nullptr;
};

}  // namespace ringside::server
