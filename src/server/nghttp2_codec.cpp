#include "server/nghttp2_codec.hpp"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <new>

namespace ringside::server {
namespace {

constexpr std::size_t kMaxResponseFields = 16;

// nghttp2's memory from the worker's allocator.
void* allocate(std::size_t size, void* memory) {
  return static_cast<core::RecyclingAllocator*>(memory)->allocate(size);
}
void release(void* block, void* memory) {
  static_cast<core::RecyclingAllocator*>(memory)->free(block);
}
void* allocate_zeroed(std::size_t count, std::size_t size, void* memory) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* block = allocate(count * size, memory);
  if (block != nullptr) std::memset(block, 0, count * size);
  return block;
}
void* reallocate(void* block, std::size_t size, void* memory) {
  return static_cast<core::RecyclingAllocator*>(memory)->reallocate(block, size);
}

H2Stream* stream_of(nghttp2_session* session, std::int32_t id) {
  return static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, id));
}

std::string_view view(const std::uint8_t* bytes, std::size_t size) {
  return {reinterpret_cast<const char*>(bytes), size};
}

// Frames a client may send now and then but a flood of which costs the server work for nothing:
// its RST_STREAMs (rapid reset, CVE-2023-44487), its SETTINGS and PINGs, each owing an ACK
// (CVE-2019-9515, -9512), and DATA frames that carry nothing and end nothing (CVE-2019-9518).
bool costs_budget(const nghttp2_frame* frame) {
  switch (frame->hd.type) {
    case NGHTTP2_RST_STREAM:
      return true;
    case NGHTTP2_SETTINGS:
    case NGHTTP2_PING:
      return (frame->hd.flags & NGHTTP2_FLAG_ACK) == 0;
    case NGHTTP2_DATA:
      return frame->hd.length == 0 && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0;
    default:
      return false;
  }
}

}  // namespace

// nghttp2's callbacks, turned into H2CodecEvents.
struct Nghttp2Callbacks {
  static Nghttp2Codec& codec(void* user_data) { return *static_cast<Nghttp2Codec*>(user_data); }

  // The response body, as the peer's window lets it go.
  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void* user_data) {
    auto* stream = static_cast<H2Stream*>(source->ptr);
    const std::size_t left = stream->body.size() - stream->body_sent;
    const std::size_t take = std::min(left, length);
    std::memcpy(buffer, stream->body.data() + stream->body_sent, take);
    stream->body_sent += take;
    codec(user_data).body_bytes_sent_ += take;
    if (stream->body_sent == stream->body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(take);
  }

  // RFC 9113 section 5.1.1: each new stream's id exceeds every id the client used before, and
  // an unexpected one is a connection error (PROTOCOL_ERROR). nghttp2 1.52 ignores a HEADERS on a
  // lower id that it keeps no stream for, since it may have closed that stream itself; we know
  // which streams we reset (their late frames are ignored, section 5.1), so any other HEADERS at
  // or below the highest id that opens no open stream ends the connection.
  static int begin_frame(nghttp2_session* session, const nghttp2_frame_hd* head, void* user_data) {
    if (head->type != NGHTTP2_HEADERS) return 0;
    Nghttp2Codec& self = codec(user_data);
    if (head->stream_id > self.highest_stream_id_) {
      self.highest_stream_id_ = head->stream_id;
      return 0;
    }
    if (nghttp2_session_find_stream(session, head->stream_id) != nullptr) return 0;  // trailers
    const auto& reset = self.recently_reset_;
    if (std::find(reset.begin(), reset.end(), head->stream_id) != reset.end()) return 0;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
  }

  static int begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    H2Stream* stream = codec(user_data).events_->on_stream_open(frame->hd.stream_id);
    if (stream == nullptr) {
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                NGHTTP2_REFUSED_STREAM);
      return 0;
    }
    nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, stream);
    codec(user_data).fields_stream_ = stream;  // a header block's fields come next, unbroken
    return 0;
  }

  static int field(nghttp2_session* session, const nghttp2_frame* frame, const std::uint8_t* name,
                   std::size_t name_length, const std::uint8_t* value, std::size_t value_length,
                   std::uint8_t, void* user_data) {
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    Nghttp2Codec& self = codec(user_data);
    // The stream begin_headers just opened, without a lookup per field; trailers look it up.
    H2Stream* stream = self.fields_stream_;
    if (stream == nullptr || stream->id != frame->hd.stream_id) {
      stream = stream_of(session, frame->hd.stream_id);
    }
    if (stream != nullptr) {
      self.events_->on_field(*stream, view(name, name_length), view(value, value_length));
    }
    return 0;
  }

  static int data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t stream_id,
                        const std::uint8_t*, std::size_t length, void* user_data) {
    if (H2Stream* stream = stream_of(session, stream_id)) {
      codec(user_data).events_->on_body(*stream, length);
    }
    return 0;
  }

  static int frame_received(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
    if (costs_budget(frame) && !codec(user_data).spend_budget()) {
      nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM);
      return 0;
    }
    const bool request_part = frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS;
    if (!request_part || (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
    if (H2Stream* stream = stream_of(session, frame->hd.stream_id)) {
      codec(user_data).events_->on_request_end(*stream);
    }
    return 0;
  }

  static int frame_sent(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
    if (frame->hd.type == NGHTTP2_RST_STREAM) {
      Nghttp2Codec& self = codec(user_data);
      self.recently_reset_[self.next_reset_slot_++ % self.recently_reset_.size()] =
          frame->hd.stream_id;
    }
    // A stream the server reset because the client broke its rules (a bad WINDOW_UPDATE, DATA on
    // a closed stream, a malformed header block...): MadeYouReset spends the budget too.
    if (frame->hd.type == NGHTTP2_RST_STREAM && frame->rst_stream.error_code != NGHTTP2_NO_ERROR &&
        !codec(user_data).spend_budget()) {
      nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM);
      return 0;
    }
    const bool answer_part = frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS;
    if (!answer_part || (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
    H2Stream* stream = stream_of(session, frame->hd.stream_id);
    if (stream != nullptr && stream->reset_after_answer) {
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_NO_ERROR);
    }
    return 0;
  }

  static int stream_closed(nghttp2_session* session, std::int32_t stream_id, std::uint32_t,
                           void* user_data) {
    if (H2Stream* stream = stream_of(session, stream_id)) {
      nghttp2_session_set_stream_user_data(session, stream_id, nullptr);
      Nghttp2Codec& self = codec(user_data);
      if (self.fields_stream_ == stream) self.fields_stream_ = nullptr;
      self.events_->on_stream_close(*stream);
    }
    return 0;
  }
};

Nghttp2Setup::Nghttp2Setup(const H2Limits& limits) : limits_(limits) {
  if (nghttp2_session_callbacks_new(&callbacks_) != 0 || nghttp2_option_new(&option_) != 0) {
    nghttp2_session_callbacks_del(callbacks_);
    throw std::bad_alloc();
  }
  nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks_, Nghttp2Callbacks::begin_frame);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks_,
                                                          Nghttp2Callbacks::begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks_, Nghttp2Callbacks::field);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks_,
                                                            Nghttp2Callbacks::data_chunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks_,
                                                       Nghttp2Callbacks::frame_received);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks_, Nghttp2Callbacks::frame_sent);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks_,
                                                         Nghttp2Callbacks::stream_closed);
  // Behind our own budget (spend_budget), which fires first and says ENHANCE_YOUR_CALM.
  nghttp2_option_set_stream_reset_rate_limit(option_, 2 * std::uint64_t{limits.reset_burst},
                                             2 * std::uint64_t{limits.reset_rate});
  // Closed streams are not kept for RFC 7540's priority tree (deprecated by RFC 9113): their
  // memory goes back at once, and the stream map stays as small as the open streams.
  nghttp2_option_set_no_closed_streams(option_, 1);
}

Nghttp2Setup::~Nghttp2Setup() {
  nghttp2_option_del(option_);
  nghttp2_session_callbacks_del(callbacks_);
}

bool Nghttp2Codec::open(const Nghttp2Setup& setup, H2CodecEvents& events,
                        core::RecyclingAllocator& memory) {
  close();
  events_ = &events;
  budget_.start(setup.limits_);
  fields_stream_ = nullptr;
  body_bytes_sent_ = 0;
  highest_stream_id_ = 0;
  recently_reset_.fill(0);
  next_reset_slot_ = 0;
  broken_ = false;
  nghttp2_mem allocator{&memory, allocate, release, allocate_zeroed, reallocate};
  if (nghttp2_session_server_new3(&session_, setup.callbacks_, this, setup.option_, &allocator) !=
      0) {
    session_ = nullptr;
    return false;
  }
  const H2Limits& limits = setup.limits_;
  const std::array<nghttp2_settings_entry, 3> settings{{
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits.max_concurrent_streams},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits.max_header_list},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits.initial_window},
  }};
  if (nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(), settings.size()) != 0) {
    close();
    return false;
  }
  return true;
}

void Nghttp2Codec::close() {
  if (session_ == nullptr) return;
  nghttp2_session_del(session_);  // calls no callback
  session_ = nullptr;
}

bool Nghttp2Codec::spend_budget() {
  if (budget_.spend()) return true;
  broken_ = true;  // nothing more is read: the GOAWAY goes out and the connection ends
  return false;
}

bool Nghttp2Codec::receive(std::span<const char> bytes) {
  if (session_ == nullptr || broken_) return false;
  const ssize_t used = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  if (used < 0) {
    broken_ = true;
    // A bad preface or a flood: say GOAWAY where nghttp2 has not queued one already.
    nghttp2_session_terminate_session(
        session_, used == NGHTTP2_ERR_FLOODED ? NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR);
    return false;
  }
  return !broken_;  // the reset budget may have run out inside the read
}

bool Nghttp2Codec::respond(H2Stream& stream, const H2ResponseHead& head) {
  std::array<nghttp2_nv, kMaxResponseFields + 1> fields;
  char status[3] = {static_cast<char>('0' + head.status / 100 % 10),
                    static_cast<char>('0' + head.status / 10 % 10),
                    static_cast<char>('0' + head.status % 10)};
  auto field = [](std::string_view name, std::string_view value) {
    return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                      reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
                      value.size(), NGHTTP2_NV_FLAG_NONE};
  };
  std::size_t count = 0;
  fields[count++] = field(":status", {status, 3});
  for (const H2Field& extra : head.fields.first(std::min(head.fields.size(), kMaxResponseFields))) {
    fields[count++] = field(extra.name, extra.value);
  }
  nghttp2_data_provider body{};
  body.source.ptr = &stream;
  body.read_callback = Nghttp2Callbacks::read_body;
  return nghttp2_submit_response(session_, stream.id, fields.data(), count,
                                 head.with_body ? &body : nullptr) == 0;
}

void Nghttp2Codec::reset(H2Stream& stream, std::uint32_t error_code) {
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream.id, error_code);
}

void Nghttp2Codec::reset_after_answer(H2Stream& stream) {
  stream.reset_after_answer = true;
}

std::span<const char> Nghttp2Codec::output() {
  if (session_ == nullptr) return {};
  const std::uint8_t* data = nullptr;
  const ssize_t size = nghttp2_session_mem_send(session_, &data);
  if (size <= 0) {
    if (size < 0) broken_ = true;
    return {};
  }
  return {reinterpret_cast<const char*>(data), static_cast<std::size_t>(size)};
}

bool Nghttp2Codec::alive() const {
  return session_ != nullptr &&
         (nghttp2_session_want_read(session_) != 0 || nghttp2_session_want_write(session_) != 0) &&
         !(broken_ && nghttp2_session_want_write(session_) == 0);
}

void Nghttp2Codec::shut_down() {
  if (session_ == nullptr) return;
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                        nullptr, 0);
}

void Nghttp2Codec::terminate(std::uint32_t error_code) {
  if (session_ == nullptr) return;
  broken_ = true;
  nghttp2_session_terminate_session(session_, error_code);
}

}  // namespace ringside::server
