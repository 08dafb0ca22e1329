// A server connection's open HTTP/2 streams by id (server/h2_server_codec.hpp): a power-of-two
// array of slots, each a chain linked through the streams themselves (H2Stream::next_by_id). A
// client's ids only rise and at most --h2-max-streams are open at once, so with at least as many
// slots as streams consecutive ids land in consecutive slots and a chain is mostly one stream:
// finding, adding and removing one touch a slot or two. The array doubles when the streams
// outnumber it and goes back when the last stream closes, so an idle connection holds none; it
// comes from the worker's RecyclingAllocator, so a steady state takes nothing from the heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/recycling_allocator.hpp"
#include "server/h2_stream.hpp"

namespace ringside::server {

class H2StreamTable {
 public:
  H2StreamTable() = default;
  ~H2StreamTable() { clear(); }
  H2StreamTable(const H2StreamTable&) = delete;
  H2StreamTable& operator=(const H2StreamTable&) = delete;

  void attach(core::RecyclingAllocator& memory) { memory_ = &memory; }
  // Forgets every stream and gives the array back.
  void clear();

  [[nodiscard]] H2Stream* find(std::int32_t id) const;
  // False when the array cannot grow (out of memory). `stream.id` is the key; not already in.
  [[nodiscard]] bool insert(H2Stream& stream);
  void erase(std::int32_t id);
  [[nodiscard]] std::uint32_t size() const { return size_; }
  // Calls visit(H2Stream&) on every stream; the table must not change meanwhile.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (std::uint32_t i = 0; i < capacity_; ++i) {
      for (H2Stream* stream = slots_[i]; stream != nullptr; stream = stream->next_by_id) {
        visit(*stream);
      }
    }
  }

 private:
  [[nodiscard]] std::uint32_t slot_of(std::int32_t id) const {
    return (static_cast<std::uint32_t>(id) >> 1) & (capacity_ - 1);
  }
  bool grow();

  core::RecyclingAllocator* memory_ = nullptr;
  H2Stream** slots_ = nullptr;
  std::uint32_t capacity_ = 0;  // a power of two, or 0
  std::uint32_t size_ = 0;
};

}  // namespace ringside::server
