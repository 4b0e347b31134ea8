#include "pushline_shims.h"

#include <openssl/crypto.h>
#include <openssl/ec.h>

EVP_PKEY *pushline_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

void pushline_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}
