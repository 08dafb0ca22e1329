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

  // The framing's own state of the stream when the codec is ours (server/h2_server_codec.hpp;
  // libnghttp2 keeps its own).
  std::int64_t send_window = 0;       // what the client's window on the stream lets us send
  std::int64_t receive_window = 0;    // what the client may still send on it
  std::uint32_t receive_unacked = 0;  // body bytes taken since the last WINDOW_UPDATE for it
  std::int64_t expected_length = -1;  // the request's content-length, -1 without one
  std::uint64_t data_received = 0;    // the request body's bytes, padding left out
  bool remote_closed = false;         // the client's END_STREAM came
  bool answered = false;              // the answer's HEADERS are written
  bool local_closed = false;          // our END_STREAM is written
  bool reset_sent = false;            // our RST_STREAM is written: it closes at the next output
  bool ready = false;                 // in the codec's queue of streams with something to send
  H2Stream* prev_ready = nullptr;
  H2Stream* next_ready = nullptr;
  H2Stream* next_by_id = nullptr;  // the next stream in its slot of the codec's H2StreamTable

  // In the connection's list of open streams; next_free also links the pool's free list.
  H2Stream* next_free = nullptr;
  H2Stream* prev_open = nullptr;
  H2Stream* next_open = nullptr;
};

}  // namespace ringside::server
