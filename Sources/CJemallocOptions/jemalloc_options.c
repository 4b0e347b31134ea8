#include "pushline_jemalloc_options.h"

// Thread caches keep freed blocks up to 128 KiB (jemalloc's default: 32 KiB). librdkafka compresses
// each produced batch (the outcome records) with a fresh LZ4 frame context, whose 64 KiB working
// buffer is calloc'd and freed again. Above the thread cache's limit, jemalloc zeroes a recycled
// block by handing its pages back to the kernel (MADV_DONTNEED), so every batch faulted 16 fresh
// zeroed pages in on librdkafka's broker threads; from the thread cache it is zeroed in place. The
// worker's page faults per delivery at a steady rate fell about tenfold (docs/kafka.md, "Memory:
// librdkafka's page faults").
const char *malloc_conf = "lg_tcache_max:17";
