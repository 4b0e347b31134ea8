#ifndef PUSHLINE_CHIREDIS_SHIM_H
#define PUSHLINE_CHIREDIS_SHIM_H
// hiredis is used as a RESP codec only (redisFormatCommandArgv, redisReader); the socket stays in Swift.
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#endif
