#ifndef PUSHLINE_SHA1_H
#define PUSHLINE_SHA1_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the SHA extensions (x86-64's SHA-NI, with the SSSE3 and SSE4.1 they need):
/// 1 or 0, asked of CPUID. Always 0 on other architectures.
int pushline_sha1_has_extensions(void);

/// SHA-1's compression of `count` 64-byte blocks at `blocks` (raw bytes) into `state` (A to E),
/// with the SHA extensions. Only when pushline_sha1_has_extensions() is 1.
void pushline_sha1_compress_extensions(uint32_t state[5], const void *blocks, size_t count);

#endif
