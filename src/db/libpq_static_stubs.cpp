// Only in the static release binary. Debian ships libpq.a built with GSSAPI and LDAP, but no static
// archives of libgssapi_krb5 or libldap, so a `-static` link of libpq leaves these symbols
// undefined. ringside never asks for either: GSSAPI encryption and authentication are for Kerberos
// sites, LDAP only for looking up `service=` entries in pg_service.conf. These stand-ins fail the
// way the real libraries fail when no Kerberos credentials or LDAP server exist, and libpq then
// goes on without them (gssencmode=prefer falls back to plain or TLS; an LDAP lookup reports that
// it could not create its handle). A server that demands GSSAPI authentication gets a clear
// "GSSAPI unavailable" error instead.
//
// Never compiled into a build that links libpq.so: there, these would interpose the real ones.
#include <cstddef>
#include <cstdint>

namespace {

using OmUint32 = std::uint32_t;
constexpr OmUint32 kGssFailure = 13u << 16;  // GSS_S_FAILURE, a calling error-free "failed"
constexpr const char kGssMessage[] = "GSSAPI is unavailable in this static ringside binary";

struct GssBuffer {  // gss_buffer_desc
  std::size_t length;
  void* value;
};

OmUint32 gss_fail(OmUint32* minor) {
  if (minor != nullptr) *minor = 0;
  return kGssFailure;
}

OmUint32 gss_done(OmUint32* minor) {
  if (minor != nullptr) *minor = 0;
  return 0;
}

}  // namespace

extern "C" {

void* GSS_C_NT_HOSTBASED_SERVICE = nullptr;

OmUint32 gss_acquire_cred(OmUint32* minor, void*, OmUint32, void*, int, void** cred, void**,
                          OmUint32*) {
  if (cred != nullptr) *cred = nullptr;
  return gss_fail(minor);
}
OmUint32 gss_import_name(OmUint32* minor, void*, void*, void** name) {
  if (name != nullptr) *name = nullptr;
  return gss_fail(minor);
}
OmUint32 gss_init_sec_context(OmUint32* minor, void*, void**, void*, void*, OmUint32, OmUint32,
                              void*, void*, void*, GssBuffer* output, OmUint32*, OmUint32*) {
  if (output != nullptr) *output = GssBuffer{0, nullptr};
  return gss_fail(minor);
}
OmUint32 gss_display_status(OmUint32* minor, OmUint32, int, void*, OmUint32* message_context,
                            GssBuffer* status) {
  gss_done(minor);
  if (message_context != nullptr) *message_context = 0;
  if (status != nullptr) *status = GssBuffer{sizeof(kGssMessage) - 1, const_cast<char*>(kGssMessage)};
  return 0;
}
OmUint32 gss_release_buffer(OmUint32* minor, GssBuffer* buffer) {
  if (buffer != nullptr) *buffer = GssBuffer{0, nullptr};  // our buffers are static or empty
  return gss_done(minor);
}
OmUint32 gss_release_cred(OmUint32* minor, void**) { return gss_done(minor); }
OmUint32 gss_release_name(OmUint32* minor, void**) { return gss_done(minor); }
OmUint32 gss_delete_sec_context(OmUint32* minor, void**, void*) { return gss_done(minor); }
OmUint32 gss_wrap(OmUint32* minor, ...) { return gss_fail(minor); }
OmUint32 gss_unwrap(OmUint32* minor, ...) { return gss_fail(minor); }
OmUint32 gss_wrap_size_limit(OmUint32* minor, ...) { return gss_fail(minor); }

// LDAP: libpq stops at ldap_init returning null; the rest exist only to satisfy the linker.
constexpr int kLdapUnavailable = -1;
void* ldap_init(const char*, int) { return nullptr; }
char* ldap_err2string(int) { return const_cast<char*>("LDAP is unavailable in this static ringside binary"); }
int ldap_set_option(void*, int, const void*) { return kLdapUnavailable; }
int ldap_simple_bind(void*, const char*, const char*) { return kLdapUnavailable; }
int ldap_search_st(void*, ...) { return kLdapUnavailable; }
int ldap_result(void*, ...) { return kLdapUnavailable; }
int ldap_count_entries(void*, void*) { return 0; }
void* ldap_first_entry(void*, void*) { return nullptr; }
void** ldap_get_values_len(void*, void*, const char*) { return nullptr; }
void ldap_value_free_len(void**) {}
int ldap_msgfree(void*) { return 0; }
int ldap_unbind(void*) { return 0; }

}  // extern "C"
