// Fuzzes the HTTP/2 client's reading side (http/h2_response_reader.hpp) with what a hostile or
// broken server could send. The first input byte picks where the rest is cut in two (as a socket
// delivers it); the rest is the server's bytes.
//
// Invariants, checked with __builtin_trap so any compiler and sanitizer stops on them:
//  - a feed never consumes more than it was given, and an error stops it;
//  - the bytes read whole or in two pieces give the very same events (statuses, ends, resets,
//    GOAWAYs), the same answers and the same error: frames count only once they are whole;
//  - every answer written is a whole frame of the kinds a client owes (SETTINGS ACK, PING ACK,
//    WINDOW_UPDATE on the connection).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "http/h2_response_reader.hpp"

namespace {

using namespace ringside::http;

#define REQUIRE(condition)              \
  do {                                  \
    if (!(condition)) __builtin_trap(); \
  } while (0)

struct Record : H2ResponseListener {
  void on_status(std::uint32_t stream, int status) override {
    events += "s" + std::to_string(stream) + ":" + std::to_string(status) + ";";
  }
  void on_stream_end(std::uint32_t stream) override { events += "e" + std::to_string(stream) + ";"; }
  void on_stream_reset(std::uint32_t stream, H2Error code) override {
    events += "r" + std::to_string(stream) + ":" + std::to_string(static_cast<std::uint32_t>(code)) + ";";
  }
  void on_goaway(std::uint32_t last, H2Error code) override {
    events += "g" + std::to_string(last) + ":" + std::to_string(static_cast<std::uint32_t>(code)) + ";";
  }
  std::string events;
  std::string answers;
  H2Error error = H2Error::kNoError;
};

void check_answers(std::string_view answers) {
  FrameScanner scanner;
  ScannedFrame frame;
  while (!answers.empty()) {
    REQUIRE(scanner.next({answers.data(), answers.size()}, frame) == ScanStatus::kFrame);
    const auto type = static_cast<H2FrameType>(frame.header.type);
    REQUIRE(frame.header.stream_id == 0);
    REQUIRE((type == H2FrameType::kSettings && frame.header.flags == h2_flags::kAck &&
             frame.header.length == 0) ||
            (type == H2FrameType::kPing && frame.header.flags == h2_flags::kAck &&
             frame.header.length == 8) ||
            (type == H2FrameType::kWindowUpdate && frame.header.length == 4));
    answers.remove_prefix(frame.size());
  }
}

// Feeds `pieces` in order, keeping what a feed did not consume, as a connection would.
Record run(const std::vector<std::string_view>& pieces) {
  H2ResponseReader reader(64);  // small, so WINDOW_UPDATEs are written often
  Record record;
  std::string pending;
  char room[4096];
  for (std::string_view piece : pieces) {
    pending.append(piece);
    while (record.error == H2Error::kNoError) {
      OutBuffer out(room, sizeof room);
      const H2ReadResult result = reader.feed({pending.data(), pending.size()}, out, record);
      REQUIRE(result.consumed <= pending.size());
      record.answers.append(out.view());
      pending.erase(0, result.consumed);
      record.error = result.error;
      if (result.consumed == 0) break;
    }
  }
  return record;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t cut = bytes.empty() ? 0 : data[0] % (bytes.size() + 1);
  const Record whole = run({bytes});
  const Record split = run({bytes.substr(0, cut), bytes.substr(cut)});
  REQUIRE(whole.events == split.events);
  REQUIRE(whole.answers == split.answers);
  REQUIRE(whole.error == split.error);
  check_answers(whole.answers);
  return 0;
}
