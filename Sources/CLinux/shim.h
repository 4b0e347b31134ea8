#ifndef PUSHLINE_CLINUX_SHIM_H
#define PUSHLINE_CLINUX_SHIM_H
// Linux headers and functions that the Glibc module does not export: epoll and eventfd, for the
// event loop and `WakeUp`; thread names, which glibc declares only under _GNU_SOURCE.
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

int pthread_setname_np(pthread_t thread, const char *name);
int pthread_getname_np(pthread_t thread, char *name, size_t size);
#endif
