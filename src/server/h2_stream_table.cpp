#include "server/h2_stream_table.hpp"

#include <cstring>

namespace ringside::server {
namespace {
constexpr std::uint32_t kFirstCapacity = 16;
}  // namespace

void H2StreamTable::clear() {
  if (slots_ != nullptr) memory_->free(slots_);
  slots_ = nullptr;
  capacity_ = size_ = 0;
}

H2Stream* H2StreamTable::find(std::int32_t id) const {
  if (size_ == 0) return nullptr;
  for (std::uint32_t slot = slot_of(id);; slot = (slot + 1) & (capacity_ - 1)) {
    H2Stream* stream = slots_[slot];
    if (stream == nullptr || stream->id == id) return stream;
  }
}

bool H2StreamTable::insert(H2Stream& stream) {
  if (2 * (size_ + 1) > capacity_ && !grow()) return false;
  std::uint32_t slot = slot_of(stream.id);
  while (slots_[slot] != nullptr) slot = (slot + 1) & (capacity_ - 1);
  slots_[slot] = &stream;
  ++size_;
  return true;
}

void H2StreamTable::erase(std::int32_t id) {
  if (size_ == 0) return;
  const std::uint32_t mask = capacity_ - 1;
  std::uint32_t hole = slot_of(id);
  while (slots_[hole] != nullptr && slots_[hole]->id != id) hole = (hole + 1) & mask;
  if (slots_[hole] == nullptr) return;
  --size_;
  // Backward shift: each later entry of the run moves into the hole unless its home slot lies
  // cyclically after the hole (then it is already as close to home as it can be).
  for (std::uint32_t next = (hole + 1) & mask; slots_[next] != nullptr; next = (next + 1) & mask) {
    const std::uint32_t home = slot_of(slots_[next]->id);
    const bool movable = ((next - home) & mask) >= ((next - hole) & mask);
    if (movable) {
      slots_[hole] = slots_[next];
      hole = next;
    }
  }
  slots_[hole] = nullptr;
  if (size_ == 0) clear();  // an idle connection holds no array
}

bool H2StreamTable::grow() {
  const std::uint32_t capacity = capacity_ == 0 ? kFirstCapacity : 2 * capacity_;
  auto** slots = static_cast<H2Stream**>(memory_->allocate(capacity * sizeof(H2Stream*)));
  if (slots == nullptr) return false;
  std::memset(slots, 0, capacity * sizeof(H2Stream*));
  H2Stream** old = slots_;
  const std::uint32_t old_capacity = capacity_;
  slots_ = slots;
  capacity_ = capacity;
  for (std::uint32_t i = 0; i < old_capacity; ++i) {
    if (old[i] == nullptr) continue;
    std::uint32_t slot = slot_of(old[i]->id);
    while (slots_[slot] != nullptr) slot = (slot + 1) & (capacity_ - 1);
    slots_[slot] = old[i];
  }
  if (old != nullptr) memory_->free(old);
  return true;
}

}  // namespace ringside::server
