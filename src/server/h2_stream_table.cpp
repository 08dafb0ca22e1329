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
  H2Stream* stream = slots_[slot_of(id)];
  while (stream != nullptr && stream->id != id) stream = stream->next_by_id;
  return stream;
}

bool H2StreamTable::insert(H2Stream& stream) {
  if (size_ + 1 > capacity_ && !grow()) return false;
  H2Stream*& slot = slots_[slot_of(stream.id)];
  stream.next_by_id = slot;
  slot = &stream;
  ++size_;
  return true;
}

void H2StreamTable::erase(std::int32_t id) {
  if (size_ == 0) return;
  for (H2Stream** link = &slots_[slot_of(id)]; *link != nullptr; link = &(*link)->next_by_id) {
    if ((*link)->id != id) continue;
    H2Stream* gone = *link;
    *link = gone->next_by_id;
    gone->next_by_id = nullptr;
    if (--size_ == 0) clear();  // an idle connection holds no array
    return;
  }
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
    for (H2Stream* stream = old[i]; stream != nullptr;) {
      H2Stream* next = stream->next_by_id;
      H2Stream*& slot = slots_[slot_of(stream->id)];
      stream->next_by_id = slot;
      slot = stream;
      stream = next;
    }
  }
  if (old != nullptr) memory_->free(old);
  return true;
}

}  // namespace ringside::server
