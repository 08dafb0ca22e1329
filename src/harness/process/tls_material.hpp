// A run's throwaway certificates, for its https workloads: a CA key and a self-signed CA
// certificate, and a server key and certificate signed by that CA, made with OpenSSL 3 when the
// run starts and valid for a day. The server certificate names IP 127.0.0.1, IP ::1, DNS
// localhost and any address the run listens on besides; its key is ECDSA P-256 (the default) or
// RSA-2048, as the scenario's `tls_key` says. Written as PEM files (each 0600) into a fresh
// directory (0700) that is removed with the object: nothing of a run's keys outlives it.
//
//   std::unique_ptr<TlsMaterial> tls = TlsMaterial::make(TlsKey::kEcdsaP256, {"10.0.0.10"});
//   tls->files().cert, .key, .ca      // {tls_cert}, {tls_key}, {tls_ca} of an https start
//
// Contestants get the paths through placeholders (config/placeholders.hpp); the harness's own
// client trusts the CA (tls_client.hpp).
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/results/kinds.hpp"

namespace ringside::harness {

struct TlsFiles {
  std::string ca;    // the CA certificate (PEM): what a client trusts
  std::string cert;  // the server certificate (PEM), signed by the CA
  std::string key;   // the server's private key (PEM, PKCS#8, unencrypted)
};

// Making the material failed; what() is one line naming the step and OpenSSL's reason.
class TlsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr long kCertificateLifetimeS = 24 * 3600;

// The subject alternative names of the server certificate: IP 127.0.0.1, IP ::1, DNS localhost,
// then each of `extra` not already there (an IP literal becomes an IP name, anything else a DNS
// name), as "IP:127.0.0.1", "DNS:localhost".
std::vector<std::string> server_names(const std::vector<std::string>& extra);

class TlsMaterial {
 public:
  // Makes the keys and certificates and writes them under `parent` ($TMPDIR, else /tmp, when
  // empty). Throws TlsError.
  static std::unique_ptr<TlsMaterial> make(TlsKey key, const std::vector<std::string>& extra_names,
                                           const std::filesystem::path& parent = {});
  ~TlsMaterial();  // removes the directory
  TlsMaterial(const TlsMaterial&) = delete;
  TlsMaterial& operator=(const TlsMaterial&) = delete;

  [[nodiscard]] const TlsFiles& files() const { return files_; }
  [[nodiscard]] TlsKey key() const { return key_; }
  [[nodiscard]] const std::filesystem::path& directory() const { return directory_; }

 private:
  TlsMaterial(TlsKey key, std::filesystem::path directory);
  TlsKey key_;
  std::filesystem::path directory_;
  TlsFiles files_;
};

}  // namespace ringside::harness
