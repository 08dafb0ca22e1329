#include "harness/process/tls_material.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using Certificate = std::unique_ptr<X509, Freer<X509, X509_free>>;
using Names = std::unique_ptr<GENERAL_NAMES, Freer<GENERAL_NAMES, GENERAL_NAMES_free>>;
using Number = std::unique_ptr<BIGNUM, Freer<BIGNUM, BN_free>>;

// "STEP: OpenSSL's reason" from the thread's error queue (which it empties).
[[noreturn]] void fail(const std::string& step) {
  std::string reason;
  char text[256];
  while (const unsigned long code = ERR_get_error()) {
    ERR_error_string_n(code, text, sizeof text);
    reason = text;  // the last is the outermost
  }
  throw TlsError("TLS certificates: " + step + (reason.empty() ? "" : ": " + reason));
}

void check(bool ok, const std::string& step) {
  if (!ok) fail(step);
}

Key make_key(TlsKey kind) {
  Key key(kind == TlsKey::kRsa2048 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256"));
  check(key != nullptr, "generating the " + std::string(tls_key_name(kind)) + " key");
  return key;
}

bool is_ip_literal(const std::string& text) {
  unsigned char address[16];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}

// A fresh certificate for `subject`'s key: version 3, a random 64-bit serial, valid from a minute
// ago (clocks of a client on the same machine may read a little behind) for the lifetime.
Certificate new_certificate(EVP_PKEY* subject_key, const std::string& common_name) {
  Certificate certificate(X509_new());
  check(certificate != nullptr, "allocating a certificate");
  check(X509_set_version(certificate.get(), X509_VERSION_3) == 1, "setting the version");
  Number serial(BN_new());
  check(serial && BN_rand(serial.get(), 64, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
            BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate.get())) != nullptr,
        "choosing a serial number");
  check(X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -60) != nullptr &&
            X509_gmtime_adj(X509_getm_notAfter(certificate.get()), kCertificateLifetimeS) != nullptr,
        "setting the validity");
  X509_NAME* name = X509_get_subject_name(certificate.get());
  check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>("ringside compare"), -1,
                                   -1, 0) == 1 &&
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                       reinterpret_cast<const unsigned char*>(common_name.c_str()),
                                       -1, -1, 0) == 1,
        "naming the certificate");
  check(X509_set_pubkey(certificate.get(), subject_key) == 1, "setting the public key");
  return certificate;
}

// One extension in OpenSSL's configuration syntax ("critical,CA:TRUE"), issued by `issuer`.
void add_extension(X509* certificate, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  const bool added = extension != nullptr && X509_add_ext(certificate, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  check(added, std::string("adding the ") + OBJ_nid2sn(nid) + " extension");
}

// The names as GENERAL_NAMEs, built directly: an IPv6 literal's colons would be read as
// separators by the configuration syntax.
void add_alt_names(X509* certificate, const std::vector<std::string>& names) {
  Names list(sk_GENERAL_NAME_new_null());
  check(list != nullptr, "allocating the subject alternative names");
  for (const std::string& entry : names) {
    const bool ip = entry.rfind("IP:", 0) == 0;
    const std::string value = entry.substr(entry.find(':') + 1);
    GENERAL_NAME* name = GENERAL_NAME_new();
    check(name != nullptr, "allocating a name");
    if (ip) {
      ASN1_OCTET_STRING* address = a2i_IPADDRESS(value.c_str());
      check(address != nullptr, "reading the address " + value);
      GENERAL_NAME_set0_value(name, GEN_IPADD, address);
    } else {
      ASN1_IA5STRING* text = ASN1_IA5STRING_new();
      check(text != nullptr && ASN1_STRING_set(text, value.c_str(), -1) == 1, "naming " + value);
      GENERAL_NAME_set0_value(name, GEN_DNS, text);
    }
    sk_GENERAL_NAME_push(list.get(), name);
  }
  check(X509_add1_ext_i2d(certificate, NID_subject_alt_name, list.get(), 0, 0) == 1,
        "adding the subject alternative names");
}

Certificate make_ca(EVP_PKEY* ca_key) {
  Certificate ca = new_certificate(ca_key, "ringside compare throwaway CA");
  check(X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) == 1, "naming the issuer");
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(ca.get(), ca_key, EVP_sha256()) > 0, "signing the CA certificate");
  return ca;
}

Certificate make_server(EVP_PKEY* server_key, TlsKey kind, X509* ca, EVP_PKEY* ca_key,
                        const std::vector<std::string>& names) {
  Certificate server = new_certificate(server_key, "localhost");
  check(X509_set_issuer_name(server.get(), X509_get_subject_name(ca)) == 1, "naming the issuer");
  add_extension(server.get(), ca, NID_basic_constraints, "critical,CA:FALSE");
  // An RSA key also enciphers (TLS 1.2's RSA key exchange); an ECDSA key only signs.
  add_extension(server.get(), ca, NID_key_usage,
                kind == TlsKey::kRsa2048 ? "critical,digitalSignature,keyEncipherment"
                                         : "critical,digitalSignature");
  add_extension(server.get(), ca, NID_ext_key_usage, "serverAuth");
  add_extension(server.get(), ca, NID_subject_key_identifier, "hash");
  add_extension(server.get(), ca, NID_authority_key_identifier, "keyid:always");
  add_alt_names(server.get(), names);
  check(X509_sign(server.get(), ca_key, EVP_sha256()) > 0, "signing the server certificate");
  return server;
}

// A file only its owner may read, created afresh (never through a planted file or link).
FILE* create_private(const fs::path& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw TlsError("TLS certificates: creating " + path.string() + ": " + std::strerror(errno));
  FILE* file = fdopen(fd, "w");
  if (file == nullptr) {
    ::close(fd);
    throw TlsError("TLS certificates: opening " + path.string() + ": " + std::strerror(errno));
  }
  return file;
}

template <typename Write>
void write_pem(const fs::path& path, Write write) {
  FILE* file = create_private(path);
  const bool written = write(file);
  const bool closed = std::fclose(file) == 0;
  check(written && closed, "writing " + path.string());
}

fs::path make_directory(const fs::path& parent) {
  fs::path base = parent;
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string pattern = (base / "ringside-tls-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {  // mode 0700
    throw TlsError("TLS certificates: cannot create a directory like " + pattern + ": " +
                   std::strerror(errno));
  }
  return pattern;
}

}  // namespace

std::vector<std::string> server_names(const std::vector<std::string>& extra) {
  std::vector<std::string> names = {"IP:127.0.0.1", "IP:::1", "DNS:localhost"};
  for (const std::string& name : extra) {
    if (name.empty()) continue;
    std::string entry = (is_ip_literal(name) ? "IP:" : "DNS:") + name;
    if (std::find(names.begin(), names.end(), entry) == names.end()) names.push_back(std::move(entry));
  }
  return names;
}

TlsMaterial::TlsMaterial(TlsKey key, fs::path directory)
    : key_(key), directory_(std::move(directory)) {
  files_.ca = (directory_ / "ca.pem").string();
  files_.cert = (directory_ / "server.pem").string();
  files_.key = (directory_ / "server-key.pem").string();
}

TlsMaterial::~TlsMaterial() {
  std::error_code error;
  fs::remove_all(directory_, error);
}

std::unique_ptr<TlsMaterial> TlsMaterial::make(TlsKey key, const std::vector<std::string>& extra_names,
                                               const fs::path& parent) {
  ERR_clear_error();
  // The CA's key is of the same kind, so the chain a client checks is all one algorithm.
  const Key ca_key = make_key(key);
  const Key server_key = make_key(key);
  const Certificate ca = make_ca(ca_key.get());
  const Certificate server =
      make_server(server_key.get(), key, ca.get(), ca_key.get(), server_names(extra_names));
  std::unique_ptr<TlsMaterial> material(new TlsMaterial(key, make_directory(parent)));
  const TlsFiles& files = material->files();
  write_pem(files.ca, [&](FILE* file) { return PEM_write_X509(file, ca.get()) == 1; });
  write_pem(files.cert, [&](FILE* file) { return PEM_write_X509(file, server.get()) == 1; });
  write_pem(files.key, [&](FILE* file) {
    return PEM_write_PrivateKey(file, server_key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1;
  });
  return material;
}

}  // namespace ringside::harness
