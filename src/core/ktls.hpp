// Kernel TLS (kTLS) for a server's sending side. Once a TLS 1.3 handshake is done, the kernel's
// TLS ULP encrypts what the connection sends: a response goes from our buffers to the socket with
// one writev and no userspace cipher (and could go with sendfile). Receiving stays with OpenSSL.
// TlsLayer (core/tls_layer.hpp) switches a connection over; `ringside serve --ktls` asks for it.
//
//   std::string why = probe_kernel_tls();   // "" when this kernel has the TLS ULP
//   KtlsSendKeys keys;
//   tls13_send_keys(0x1301, secret, records_sent, keys);   // RFC 8446 §7.3, linux/tls.h layout
//   KernelTls::linux_kernel().install_send_keys(fd, keys);
//
// What the kernel needs besides the keys is the number of the next record (the nonce's sequence
// number): OpenSSL 3.0 does not say it, so RecordTally counts the records that left after the
// sending key changed (the session tickets, an early KeyUpdate's answer).
//
// KernelTls is an interface so that a test can stand in for a kernel that has no TLS ULP (this
// project's CI machine has none): the stand-in encrypts what the server sent in plaintext with
// the keys it was given, and a real OpenSSL client must read it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace ringside::core {

// linux/tls.h's struct tls12_crypto_info_* for one cipher (TLS 1.3 uses the same structs), as
// bytes: what setsockopt(SOL_TLS, TLS_TX) takes.
struct KtlsSendKeys {
  std::array<unsigned char, 64> crypto_info{};
  std::size_t length = 0;
};

// The TLS 1.3 cipher suites the kernel can carry, by their IANA numbers.
inline constexpr std::uint16_t kTlsAes128GcmSha256 = 0x1301;
inline constexpr std::uint16_t kTlsAes256GcmSha384 = 0x1302;
inline constexpr std::uint16_t kTlsChacha20Poly1305Sha256 = 0x1303;

// The kernel's sending keys for a TLS 1.3 connection: key and IV expanded from the traffic
// secret (HKDF-Expand-Label "key" / "iv"), starting at record number `next_record`. False for a
// cipher the kernel cannot carry, or a secret of the wrong length for it.
[[nodiscard]] bool tls13_send_keys(std::uint16_t cipher, std::span<const unsigned char> secret,
                                   std::uint64_t next_record, KtlsSendKeys& keys);

// "" when this kernel has the TLS ULP (tried on a loopback TCP connection of our own), else one
// line saying why not and what to do.
[[nodiscard]] std::string probe_kernel_tls();

class KernelTls {
 public:
  virtual ~KernelTls() = default;
  // Attaches the TLS ULP to the connected TCP socket `fd` and gives it the sending keys: from
  // here on what is sent on `fd` is plaintext the kernel encrypts. False (errno set) if refused.
  virtual bool install_send_keys(int fd, const KtlsSendKeys& keys) = 0;
  // Sends one record of another content type (21: an alert) holding `bytes`, now. False (errno
  // set) unless the kernel took all of it.
  virtual bool send_record(int fd, unsigned char content_type, std::span<const unsigned char> bytes) = 0;

  // setsockopt(TCP_ULP "tls"), setsockopt(SOL_TLS, TLS_TX), sendmsg with TLS_SET_RECORD_TYPE.
  static KernelTls& linux_kernel();
};

// Follows the TLS records a connection sends (their 5-byte headers), to count those that start
// at or after a marked byte. Pure: it only sees the bytes it is given, in order.
class RecordTally {
 public:
  void reset() { *this = RecordTally{}; }
  // Records starting at or after stream byte `offset` (which may not have been seen yet) count.
  void mark(std::uint64_t offset);
  void consume(const char* bytes, std::size_t length);

  [[nodiscard]] std::uint64_t offset() const { return offset_; }
  [[nodiscard]] bool marked() const { return marked_; }
  // No record is half seen.
  [[nodiscard]] bool at_record_boundary() const { return header_bytes_ == 0 && body_left_ == 0; }
  // The mark fell inside a record (so the count means nothing).
  [[nodiscard]] bool mark_misplaced() const { return mark_misplaced_; }
  [[nodiscard]] std::uint64_t records_after_mark() const { return counted_; }

 private:
  std::uint64_t offset_ = 0;        // bytes seen
  std::uint64_t mark_ = 0;
  std::uint64_t record_start_ = 0;  // where the record whose header is being read starts
  std::uint64_t counted_ = 0;
  std::uint32_t body_left_ = 0;
  std::array<unsigned char, 5> header_{};
  std::uint8_t header_bytes_ = 0;
  bool marked_ = false;
  bool mark_misplaced_ = false;
};

}  // namespace ringside::core
