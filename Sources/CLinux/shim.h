#ifndef PUSHLINE_CLINUX_SHIM_H
#define PUSHLINE_CLINUX_SHIM_H
// Linux headers that the Glibc module does not export: epoll and eventfd, for the event loop.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
