#include "core/ktls.hpp"

#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string_view>

namespace ringside::core {
namespace {

// RFC 8446 §7.1: HKDF-Expand(secret, HkdfLabel, length), HkdfLabel = length (2 bytes),
// "tls13 " + label (1-byte length), context (1-byte length, empty here).
bool expand_label(const char* digest, std::span<const unsigned char> secret, std::string_view label,
                  unsigned char* out, std::size_t length) {
  std::array<unsigned char, 2 + 1 + 6 + 16 + 1> info{};
  std::size_t at = 0;
  info[at++] = static_cast<unsigned char>(length >> 8);
  info[at++] = static_cast<unsigned char>(length);
  info[at++] = static_cast<unsigned char>(6 + label.size());
  std::memcpy(&info[at], "tls13 ", 6);
  at += 6;
  std::memcpy(&info[at], label.data(), label.size());
  at += label.size();
  info[at++] = 0;

  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* context = kdf != nullptr ? EVP_KDF_CTX_new(kdf) : nullptr;
  EVP_KDF_free(kdf);
  if (context == nullptr) return false;
  int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<unsigned char*>(secret.data()),
                                        secret.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), at),
      OSSL_PARAM_construct_end(),
  };
  const bool derived = EVP_KDF_derive(context, out, length, params) == 1;
  EVP_KDF_CTX_free(context);
  return derived;
}

void put_sequence(unsigned char* out, std::uint64_t number) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<unsigned char>(number);
    number >>= 8;
  }
}

// The AES-GCM structs: the 12-byte IV splits into a 4-byte salt and 8 bytes.
template <typename Info>
bool fill_gcm(std::uint16_t cipher_type, const char* digest, std::span<const unsigned char> secret,
              std::uint64_t next_record, KtlsSendKeys& keys) {
  Info info{};
  info.info.version = TLS_1_3_VERSION;
  info.info.cipher_type = cipher_type;
  std::array<unsigned char, 12> iv{};
  if (!expand_label(digest, secret, "key", info.key, sizeof info.key) ||
      !expand_label(digest, secret, "iv", iv.data(), iv.size())) {
    return false;
  }
  static_assert(sizeof info.salt + sizeof info.iv == 12);
  std::memcpy(info.salt, iv.data(), sizeof info.salt);
  std::memcpy(info.iv, iv.data() + sizeof info.salt, sizeof info.iv);
  put_sequence(info.rec_seq, next_record);
  static_assert(sizeof info <= sizeof keys.crypto_info);
  std::memcpy(keys.crypto_info.data(), &info, sizeof info);
  keys.length = sizeof info;
  OPENSSL_cleanse(&info, sizeof info);
  OPENSSL_cleanse(iv.data(), iv.size());
  return true;
}

bool fill_chacha(std::span<const unsigned char> secret, std::uint64_t next_record,
                 KtlsSendKeys& keys) {
  tls12_crypto_info_chacha20_poly1305 info{};
  info.info.version = TLS_1_3_VERSION;
  info.info.cipher_type = TLS_CIPHER_CHACHA20_POLY1305;
  if (!expand_label("SHA256", secret, "key", info.key, sizeof info.key) ||
      !expand_label("SHA256", secret, "iv", info.iv, sizeof info.iv)) {
    return false;
  }
  put_sequence(info.rec_seq, next_record);
  static_assert(sizeof info <= sizeof keys.crypto_info);
  std::memcpy(keys.crypto_info.data(), &info, sizeof info);
  keys.length = sizeof info;
  OPENSSL_cleanse(&info, sizeof info);
  return true;
}

class LinuxKernelTls final : public KernelTls {
 public:
  bool install_send_keys(int fd, const KtlsSendKeys& keys) override {
    if (setsockopt(fd, SOL_TCP, TCP_ULP, "tls", sizeof "tls") != 0) return false;
    return setsockopt(fd, SOL_TLS, TLS_TX, keys.crypto_info.data(),
                      static_cast<socklen_t>(keys.length)) == 0;
  }

  bool send_record(int fd, unsigned char content_type, std::span<const unsigned char> bytes) override {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(unsigned char))] = {};
    iovec part{const_cast<unsigned char*>(bytes.data()), bytes.size()};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_TLS;
    header->cmsg_type = TLS_SET_RECORD_TYPE;
    header->cmsg_len = CMSG_LEN(sizeof(unsigned char));
    *CMSG_DATA(header) = content_type;
    const ssize_t sent = sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent == static_cast<ssize_t>(bytes.size())) return true;
    if (sent >= 0) errno = EAGAIN;
    return false;
  }
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool tls13_send_keys(std::uint16_t cipher, std::span<const unsigned char> secret,
                     std::uint64_t next_record, KtlsSendKeys& keys) {
  keys = KtlsSendKeys{};
  switch (cipher) {
    case kTlsAes128GcmSha256:
      return secret.size() == 32 && fill_gcm<tls12_crypto_info_aes_gcm_128>(
                                        TLS_CIPHER_AES_GCM_128, "SHA256", secret, next_record, keys);
    case kTlsAes256GcmSha384:
      return secret.size() == 48 && fill_gcm<tls12_crypto_info_aes_gcm_256>(
                                        TLS_CIPHER_AES_GCM_256, "SHA384", secret, next_record, keys);
    case kTlsChacha20Poly1305Sha256:
      return secret.size() == 32 && fill_chacha(secret, next_record, keys);
    default:
      return false;
  }
}

std::string probe_kernel_tls() {
  Fd listener{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  Fd client{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listener.fd < 0 || client.fd < 0 ||
      bind(listener.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(listener.fd, 1) != 0 ||
      getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      connect(client.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return std::string("could not make a loopback connection to try the kernel's TLS on (") +
           std::strerror(errno) + ")";
  }
  Fd accepted{accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC)};
  if (setsockopt(client.fd, SOL_TCP, TCP_ULP, "tls", sizeof "tls") == 0) return "";
  if (errno == ENOENT) {
    return "this kernel has no TLS ULP (built without CONFIG_TLS, or its module not loaded: "
           "`modprobe tls`)";
  }
  return std::string("the kernel refused its TLS ULP on a loopback connection (") +
         std::strerror(errno) + ")";
}

KernelTls& KernelTls::linux_kernel() {
  static LinuxKernelTls kernel;
  return kernel;
}

void RecordTally::mark(std::uint64_t offset) {
  mark_ = offset;
  marked_ = true;
  counted_ = 0;
  // Behind what was seen it cannot be checked; inside the record being read it is misplaced (a
  // record whose header is still incomplete is checked when its header is).
  mark_misplaced_ = offset < offset_ || (body_left_ > 0 && offset_ + body_left_ > offset) ||
                    (offset == offset_ && header_bytes_ > 0);
}

void RecordTally::consume(const char* bytes, std::size_t length) {
  while (length > 0) {
    if (body_left_ > 0) {
      const std::size_t skip = std::min<std::size_t>(body_left_, length);
      body_left_ -= static_cast<std::uint32_t>(skip);
      offset_ += skip;
      bytes += skip;
      length -= skip;
      continue;
    }
    if (header_bytes_ == 0) record_start_ = offset_;
    header_[header_bytes_++] = static_cast<unsigned char>(*bytes);
    ++offset_;
    ++bytes;
    --length;
    if (header_bytes_ < header_.size()) continue;
    header_bytes_ = 0;
    body_left_ = (std::uint32_t{header_[3]} << 8) | header_[4];
    if (!marked_) continue;
    const std::uint64_t end = record_start_ + header_.size() + body_left_;
    if (record_start_ >= mark_) {
      ++counted_;
    } else if (end > mark_) {
      mark_misplaced_ = true;
    }
  }
}

}  // namespace ringside::core
