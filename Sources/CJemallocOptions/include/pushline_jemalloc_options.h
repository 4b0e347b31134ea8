#ifndef PUSHLINE_JEMALLOC_OPTIONS_H
#define PUSHLINE_JEMALLOC_OPTIONS_H
// The options jemalloc reads at start from the executable it is linked into (a global that Swift
// cannot define). MALLOC_CONF in the environment is read after it and wins.

/// jemalloc's `malloc_conf`: "lg_tcache_max:17" (see jemalloc_options.c for why).
extern const char *malloc_conf;

#endif
