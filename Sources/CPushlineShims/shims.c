#include "pushline_shims.h"

#include <openssl/crypto.h>
#include <openssl/ec.h>

EVP_PKEY *pushline_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

void pushline_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

int pushline_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

int pushline_ssl_ctx_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
