#ifndef PUSHLINE_MHD_SHIMS_H
#define PUSHLINE_MHD_SHIMS_H
// libmicrohttpd's start and info calls are variadic, so Swift cannot call them.

#include <stdint.h>
#include <microhttpd.h>

/// Starts a daemon with one internal polling thread on `address` (an IPv4 or IPv6 literal: "127.0.0.1",
/// "0.0.0.0", "::1", "::" — every IPv6 and IPv4 address) and `port` (0 = pick a free port).
/// An address that is not an IP literal fails with errno EINVAL.
/// `completed` runs when a request ends, successful or not, so per-request state can be freed.
/// Wraps the variadic `MHD_start_daemon`. Returns NULL on failure (errno is set).
struct MHD_Daemon *pushline_mhd_start(const char *address, uint16_t port,
                                      MHD_AccessHandlerCallback handler, void *handler_context,
                                      MHD_RequestCompletedCallback completed, void *completed_context);

/// The port the daemon listens on (the real one when it was started on port 0), or 0 when unknown.
/// Wraps the variadic `MHD_get_daemon_info`.
uint16_t pushline_mhd_bound_port(struct MHD_Daemon *daemon);

#endif
