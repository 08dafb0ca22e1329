// A bounded output buffer over memory the caller owns. Appends never allocate; callers check
// remaining() (or the writer's return value) and flush when it runs short.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace ringside::http {

class OutBuffer {
 public:
  OutBuffer(char* data, std::size_t capacity) : data_(data), capacity_(capacity) {}

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t remaining() const { return capacity_ - size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const char* data() const { return data_; }
  [[nodiscard]] std::string_view view() const { return {data_, size_}; }
  void clear() { size_ = 0; }

  // Unchecked: the caller has ensured room.
  void append(std::string_view bytes) {
    // An empty view may hold a null pointer, and memcpy from null is undefined even for 0 bytes.
    if (bytes.empty()) return;
    std::memcpy(data_ + size_, bytes.data(), bytes.size());
    size_ += bytes.size();
  }
  void append_decimal(std::uint64_t value) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (n > 0) data_[size_++] = digits[--n];
  }

 private:
  char* data_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

}  // namespace ringside::http
