#ifndef PUSHLINE_SHIMS_H
#define PUSHLINE_SHIMS_H
// What Swift cannot call directly: OpenSSL macros and variadic functions. Plain C types only.

#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

/// Generates a new P-256 (prime256v1) key pair. `EVP_EC_gen` is a macro over the variadic
/// `EVP_PKEY_Q_keygen`, so Swift cannot call it. Returns NULL on failure (see ERR_get_error).
EVP_PKEY *pushline_generate_p256_key(void);

/// Frees memory that OpenSSL allocated (`OPENSSL_free` is a macro).
void pushline_openssl_free(void *pointer);

/// Sets the SNI host name a TLS client sends (`SSL_set_tlsext_host_name` is a macro).
int pushline_ssl_set_server_name(SSL *ssl, const char *name);

/// Refuses protocol versions below TLS 1.2 (`SSL_CTX_set_min_proto_version` is a macro).
int pushline_ssl_ctx_require_tls12(SSL_CTX *context);

#endif
