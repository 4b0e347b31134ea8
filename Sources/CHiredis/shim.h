#ifndef PUSHLINE_CHIREDIS_SHIM_H
#define PUSHLINE_CHIREDIS_SHIM_H
// hiredis decodes RESP only (redisReader; the Redis module encodes commands itself); the socket stays in Swift.
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#endif
