// A client connection speaking HTTP/2: h2 (TLS, ALPN "h2") or h2c with prior knowledge (a plain
// connection whose first bytes are the client preface). A server Connection turns into one on
// its first bytes (server/connection.hpp) and hands it every transport event from then on.
//
// Streams run at once, up to --h2-max-streams: each complete request is routed as HTTP/1.1's are,
// by the same Router and handlers, and answered on its stream when its reply is ready, in whatever
// order replies come (a parked request's PendingReply answers later). The framing is an H2Codec
// (server/h2_codec.hpp); what one read produces goes out in one write. Streams, their buffers and
// the codec's memory come from the worker's pools (H2Resources), so a steady state allocates
// nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/block_pool.hpp"
#include "core/free_list_pool.hpp"
#include "core/recycling_allocator.hpp"
#include "core/transport.hpp"
#include "http/out_buffer.hpp"
#include "server/h2_codec.hpp"
#include "server/h2_server_codec.hpp"
#include "server/h2_stream.hpp"
#include "server/nghttp2_codec.hpp"
#include "server/pending_reply.hpp"
#include "server/reply.hpp"
#include "server/worker_context.hpp"

namespace ringside::server {

// What the HTTP/2 connection needs of the Connection it grew from: its end, and its timer.
class H2Host {
 public:
  virtual void close() = 0;
  // After the last frame (a GOAWAY): close the sending side and read on a while, so that what the
  // client still sends does not make the kernel reset the connection and lose that frame.
  virtual void end_gracefully() = 0;
  // The idle clock: started again (`restart`), or left running if it already runs.
  virtual void arm_idle(bool restart) = 0;

 protected:
  ~H2Host() = default;
};

class H2Connection final : private H2CodecEvents, private ReplyQueue {
 public:
  // Starts the session on `transport` (already open): the server's SETTINGS wait to go out with
  // the answer to the first bytes (give them to on_data). False when the codec cannot start: the
  // host closes.
  [[nodiscard]] bool open(WorkerContext& context, core::Transport& transport, H2Host& host);
  void on_data(std::span<const char> bytes);
  void on_drained();
  void on_timeout();
  // Ends the session and gives back every stream; parked requests hear that the client is gone.
  void close();

  H2Connection* next_free = nullptr;

 private:
  // H2CodecEvents
  H2Stream* on_stream_open(std::int32_t id) override;
  void on_field(H2Stream& stream, std::string_view name, std::string_view value) override;
  void on_body(H2Stream& stream, std::size_t bytes) override;
  void on_request_end(H2Stream& stream) override;
  void on_stream_close(H2Stream& stream) override;

  // ReplyQueue: a parked request's answer goes out on its stream.
  PendingReply& park() override;
  void on_reply_ready(PendingReply& reply) override;

  void route(H2Stream& stream);
  bool read_request(H2Stream& stream, http::Request& request);
  void answer(H2Stream& stream, const Reply& reply, std::string_view body);
  void respond(H2Stream& stream, http::Status status, std::string_view content_type,
               std::string_view extra_headers, std::size_t body_size);
  void release_stream(H2Stream& stream);
  void flush();
  bool send(http::OutBuffer& batch);
  bool send(std::span<const char> bytes);
  void after_io();

  WorkerContext* ctx_ = nullptr;
  H2Resources* h2_ = nullptr;
  core::Transport* transport_ = nullptr;
  H2Host* host_ = nullptr;
  // The framing: ours, or libnghttp2's (--h2-codec nghttp2); `codec_` is the one in use.
  H2ServerCodec own_codec_;
  Nghttp2Codec nghttp2_codec_;
  H2Codec* codec_ = &own_codec_;
  H2Stream* open_streams_ = nullptr;
  H2Stream* routing_ = nullptr;  // the stream whose handler runs (park() parks it)
  bool receiving_ = false;       // inside codec_.receive(): an answer is flushed after it
  bool going_away_ = false;      // draining: GOAWAY sent
  // Response body bytes answered (less what reset streams left unsent): more than the codec has
  // sent means the peer's flow-control windows hold the rest back.
  std::uint64_t body_owed_ = 0;
  std::uint64_t body_sent_at_arm_ = 0;  // the codec's count when the idle clock last started
};

// A worker's HTTP/2 state, shared by its HTTP/2 connections: made when the server serves HTTP/2.
struct H2Resources {
  H2Resources(const H2Limits& h2_limits, bool use_nghttp2)
      : limits(h2_limits),
        nghttp2_codec(use_nghttp2),
        setup(h2_limits),
        hpack_scratch(new char[http::HpackDecoder::kScratchBytes]),
        head_blocks(h2_limits.max_header_list, 256, 16) {}

  H2Limits limits;
  bool nghttp2_codec;  // --h2-codec nghttp2
  Nghttp2Setup setup;
  std::unique_ptr<char[]> hpack_scratch;  // our codec's Huffman strings while a block is decoded
  core::RecyclingAllocator memory;  // the codec's
  core::BlockPool head_blocks;      // a request's fields while it is read
  core::FreeListPool<H2Stream, &H2Stream::next_free> streams;
  core::FreeListPool<H2Connection, &H2Connection::next_free> connections;
};

}  // namespace ringside::server
