#ifndef PUSHLINE_CMICROHTTPD_SHIM_H
#define PUSHLINE_CMICROHTTPD_SHIM_H
#include <microhttpd.h>
#endif
