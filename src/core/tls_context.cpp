#include "core/tls_context.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <cstring>

namespace ringside::core {
namespace {

// OpenSSL's queued errors as one line (the last, most specific one), and the queue cleared.
std::string openssl_error_line() {
  unsigned long code = 0;
  unsigned long last = 0;
  while ((code = ERR_get_error()) != 0) last = code;
  if (last == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(last, text, sizeof text);
  return text;
}

std::string hex_fingerprint(X509* certificate) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (X509_digest(certificate, EVP_sha256(), digest, &length) != 1) return "";
  std::string out;
  char byte[4];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof byte, i == 0 ? "%02X" : ":%02X", digest[i]);
    out += byte;
  }
  return out;
}

std::string describe_key(EVP_PKEY* key) {
  if (key == nullptr) return "no key";
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC) {
    char group[64] = {};
    std::size_t length = 0;
    if (EVP_PKEY_get_group_name(key, group, sizeof group, &length) == 1) {
      if (std::strcmp(group, "prime256v1") == 0) return "ECDSA P-256";
      if (std::strcmp(group, "secp384r1") == 0) return "ECDSA P-384";
      return std::string("ECDSA ") + group;
    }
    return "ECDSA";
  }
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA) {
    return "RSA " + std::to_string(EVP_PKEY_get_bits(key));
  }
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519) return "Ed25519";
  return std::string(OBJ_nid2sn(EVP_PKEY_get_base_id(key)));
}

bool add_extension(X509* certificate, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, certificate, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (extension == nullptr) return false;
  const bool added = X509_add_ext(certificate, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  return added;
}

// An ECDSA P-256 key and a certificate for localhost, 127.0.0.1 and ::1, valid 30 days.
bool use_self_signed(SSL_CTX* ctx, std::string& error) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* certificate = X509_new();
  bool ok = key != nullptr && certificate != nullptr;
  if (ok) {
    unsigned char serial[16];
    ok = RAND_bytes(serial, sizeof serial) == 1;
    serial[0] &= 0x7f;  // positive
    BIGNUM* number = ok ? BN_bin2bn(serial, sizeof serial, nullptr) : nullptr;
    ok = number != nullptr && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nullptr;
    BN_free(number);
  }
  if (ok) {
    X509_set_version(certificate, 2);
    X509_gmtime_adj(X509_getm_notBefore(certificate), -3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate), 30L * 24 * 3600);
    X509_NAME* name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("ringside serve"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(certificate, name);
    ok = X509_set_pubkey(certificate, key) == 1 &&
         add_extension(certificate, NID_subject_alt_name,
                       "DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1") &&
         add_extension(certificate, NID_basic_constraints, "critical,CA:FALSE") &&
         add_extension(certificate, NID_ext_key_usage, "serverAuth") &&
         X509_sign(certificate, key, EVP_sha256()) > 0 &&
         SSL_CTX_use_certificate(ctx, certificate) == 1 && SSL_CTX_use_PrivateKey(ctx, key) == 1;
  }
  if (!ok) error = "--tls-self-signed: could not make a certificate: " + openssl_error_line();
  X509_free(certificate);
  EVP_PKEY_free(key);
  return ok;
}

std::vector<unsigned char> alpn_wire(const std::vector<std::string>& protocols) {
  std::vector<unsigned char> wire;
  for (const std::string& protocol : protocols) {
    if (protocol.empty() || protocol.size() > 255) continue;
    wire.push_back(static_cast<unsigned char>(protocol.size()));
    wire.insert(wire.end(), protocol.begin(), protocol.end());
  }
  return wire;
}

}  // namespace

TlsContext::TlsContext(SSL_CTX* ctx, bool server) : ctx_(ctx), server_(server) {
  SSL_CTX_set_app_data(ctx_, this);
}

TlsContext::~TlsContext() {
  if (last_session_ != nullptr) SSL_SESSION_free(last_session_);
  SSL_CTX_free(ctx_);
}

std::unique_ptr<TlsContext> TlsContext::make_server(const TlsServerOptions& options,
                                                    std::string& error) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) {
    error = "TLS: cannot make a context: " + openssl_error_line();
    return nullptr;
  }
  std::unique_ptr<TlsContext> context(new TlsContext(ctx, true));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // No renegotiation (a client-initiated one is a CPU attack), no compression (CRIME); the
  // server's order of ciphers for TLS 1.2.
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE);
  // A write may be taken record by record, and retried from another address (our own copy).
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (options.self_signed) {
    if (!use_self_signed(ctx, error)) return nullptr;
  } else {
    if (SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
      error = "--tls-cert " + options.cert_file + ": not a PEM certificate (" +
              openssl_error_line() + "): give the server's certificate, then any intermediates";
      return nullptr;
    }
    EVP_PKEY* key = nullptr;
    if (BIO* file = BIO_new_file(options.key_file.c_str(), "r")) {
      key = PEM_read_bio_PrivateKey(file, nullptr, nullptr, nullptr);
      BIO_free(file);
    }
    if (key == nullptr) {
      error = "--tls-key " + options.key_file + ": not a PEM private key (" +
              openssl_error_line() + ")";
      return nullptr;
    }
    const bool matches = SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
    EVP_PKEY_free(key);
    if (!matches) {
      ERR_clear_error();
      error = "--tls-key " + options.key_file + " does not match the certificate in --tls-cert " +
              options.cert_file;
      return nullptr;
    }
  }
  X509* certificate = SSL_CTX_get0_certificate(ctx);
  context->fingerprint_ = certificate != nullptr ? hex_fingerprint(certificate) : "";
  context->key_description_ = describe_key(SSL_CTX_get0_privatekey(ctx));

  // Sessions: a cache for TLS 1.2 session ids, and tickets (TLS 1.2 and 1.3) under our own keys,
  // shared by every worker thread and replaced every ticket_key_lifetime.
  static const unsigned char kSessionContext[] = "ringside";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof kSessionContext - 1);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
  SSL_CTX_sess_set_cache_size(ctx, 20480);
  SSL_CTX_set_timeout(ctx, 3600);
  context->ticket_key_lifetime_ = options.ticket_key_lifetime;
  if (!context->make_ticket_key(context->current_key_)) {
    error = "TLS: cannot make a session ticket key: " + openssl_error_line();
    return nullptr;
  }
  context->ticket_keys_made_ = 1;
  SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, &TlsContext::on_ticket_key);

  context->alpn_wire_ = alpn_wire(options.alpn);
  if (!context->alpn_wire_.empty()) SSL_CTX_set_alpn_select_cb(ctx, &TlsContext::on_alpn, context.get());
  return context;
}

std::unique_ptr<TlsContext> TlsContext::make_client(const TlsClientOptions& options,
                                                    std::string& error) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) {
    error = "TLS: cannot make a context: " + openssl_error_line();
    return nullptr;
  }
  std::unique_ptr<TlsContext> context(new TlsContext(ctx, false));
  context->server_name_ = options.server_name;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (!options.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) != 1) {
      error = "--cacert " + options.ca_file + ": no PEM certificate could be read (" +
              openssl_error_line() + ")";
      return nullptr;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!options.verify_ip.empty() &&
        X509_VERIFY_PARAM_set1_ip_asc(SSL_CTX_get0_param(ctx), options.verify_ip.c_str()) != 1) {
      error = "TLS: " + options.verify_ip + " is not an IP address to verify the server against";
      return nullptr;
    }
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  // The sessions servers give are kept here (the newest), to be offered by TlsLayer.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb(ctx, &TlsContext::on_new_session);
  context->alpn_wire_ = alpn_wire(options.alpn);
  if (!context->alpn_wire_.empty() &&
      SSL_CTX_set_alpn_protos(ctx, context->alpn_wire_.data(),
                              static_cast<unsigned int>(context->alpn_wire_.size())) != 0) {
    error = "TLS: cannot set ALPN: " + openssl_error_line();
    return nullptr;
  }
  return context;
}

std::uint64_t TlsContext::ticket_keys_made() const {
  std::lock_guard<std::mutex> lock(ticket_mutex_);
  return ticket_keys_made_;
}

bool TlsContext::make_ticket_key(TicketKey& key) const {
  key.made = Clock::now();
  return RAND_bytes(key.name.data(), static_cast<int>(key.name.size())) == 1 &&
         RAND_priv_bytes(key.aes_key.data(), static_cast<int>(key.aes_key.size())) == 1 &&
         RAND_priv_bytes(key.hmac_key.data(), static_cast<int>(key.hmac_key.size())) == 1;
}

int TlsContext::on_ticket_key(SSL* ssl, unsigned char* name, unsigned char* iv,
                              EVP_CIPHER_CTX* cipher, EVP_MAC_CTX* mac, int encrypt) {
  auto* self = static_cast<TlsContext*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  TicketKey key;
  // A valid ticket is always renewed (2): OpenSSL's server sends a TLS 1.3 resumption no new
  // ticket otherwise, and its client uses a ticket once (RFC 8446 8.1), so a client that resumes
  // would have to fall back to a full handshake every other connection.
  int result = 2;
  {
    std::lock_guard<std::mutex> lock(self->ticket_mutex_);
    if (encrypt != 0) {
      if (Clock::now() - self->current_key_.made >= self->ticket_key_lifetime_) {
        TicketKey fresh;
        if (self->make_ticket_key(fresh)) {
          self->previous_key_ = self->current_key_;
          self->has_previous_key_ = true;
          self->current_key_ = fresh;
          ++self->ticket_keys_made_;
        }
      }
      key = self->current_key_;
    } else if (std::memcmp(name, self->current_key_.name.data(), key.name.size()) == 0) {
      key = self->current_key_;
    } else if (self->has_previous_key_ &&
               std::memcmp(name, self->previous_key_.name.data(), key.name.size()) == 0) {
      key = self->previous_key_;  // valid; its renewal goes out under the current key
    } else {
      return 0;  // a key we no longer have: a full handshake
    }
  }
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, key.hmac_key.data(), key.hmac_key.size()),
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
      OSSL_PARAM_construct_end()};
  if (encrypt != 0) {
    std::memcpy(name, key.name.data(), key.name.size());
    if (RAND_bytes(iv, EVP_CIPHER_get_iv_length(EVP_aes_256_cbc())) != 1) return -1;
    if (EVP_EncryptInit_ex(cipher, EVP_aes_256_cbc(), nullptr, key.aes_key.data(), iv) != 1) return -1;
  } else if (EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), nullptr, key.aes_key.data(), iv) != 1) {
    return -1;
  }
  if (EVP_MAC_CTX_set_params(mac, params) != 1) return -1;
  return result;
}

int TlsContext::on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* self = static_cast<TlsContext*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  if (SSL_SESSION_is_resumable(session) != 1) return 0;
  if (self->last_session_ != nullptr) SSL_SESSION_free(self->last_session_);
  self->last_session_ = session;
  return 1;  // we keep the reference
}

void TlsContext::enable_kernel_tls(KernelTls& kernel) {
  kernel_tls_ = &kernel;
  SSL_CTX_set_keylog_callback(ctx_, &TlsContext::on_key_log);
}

// OpenSSL's key log (NSS format: "LABEL <client random, hex> <secret, hex>") is the only public
// way OpenSSL 3.0 gives a traffic secret; the one the kernel needs is the server's first
// application secret, logged as the server derives it (its Finished already written).
void TlsContext::on_key_log(const SSL* ssl, const char* line) {
  static constexpr char kLabel[] = "SERVER_TRAFFIC_SECRET_0 ";
  if (std::strncmp(line, kLabel, sizeof kLabel - 1) != 0) return;
  auto* listener = static_cast<SendSecretListener*>(SSL_get_app_data(ssl));
  if (listener == nullptr) return;
  const char* hex = std::strchr(line + sizeof kLabel - 1, ' ');
  if (hex == nullptr) return;
  ++hex;
  std::array<unsigned char, 64> secret{};
  std::size_t length = 0;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (; hex[0] != '\0' && hex[1] != '\0' && length < secret.size(); hex += 2) {
    const int high = nibble(hex[0]);
    const int low = nibble(hex[1]);
    if (high < 0 || low < 0) break;
    secret[length++] = static_cast<unsigned char>(high << 4 | low);
  }
  listener->on_send_secret(std::span<const unsigned char>(secret.data(), length));
  OPENSSL_cleanse(secret.data(), secret.size());
}

int TlsContext::on_alpn(SSL* ssl, const unsigned char** out, unsigned char* out_len,
                        const unsigned char* in, unsigned int in_len, void* arg) {
  (void)ssl;
  auto* self = static_cast<TlsContext*>(arg);
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_len, self->alpn_wire_.data(),
                            static_cast<unsigned int>(self->alpn_wire_.size()), in,
                            in_len) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;  // nothing in common: no ALPN, HTTP/1.1 as without it
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace ringside::core
