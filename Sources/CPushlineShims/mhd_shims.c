#include "pushline_mhd_shims.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *pushline_mhd_start(const char *address, uint16_t port,
                                      MHD_AccessHandlerCallback handler, void *handler_context,
                                      MHD_RequestCompletedCallback completed, void *completed_context) {
    struct sockaddr_in address4;
    struct sockaddr_in6 address6;
    struct sockaddr *bound;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC;
    memset(&address4, 0, sizeof(address4));
    memset(&address6, 0, sizeof(address6));
    if (inet_pton(AF_INET, address, &address4.sin_addr) == 1) {
        address4.sin_family = AF_INET;
        address4.sin_port = htons(port);
        bound = (struct sockaddr *)&address4;
    } else if (inet_pton(AF_INET6, address, &address6.sin6_addr) == 1) {
        address6.sin6_family = AF_INET6;
        address6.sin6_port = htons(port);
        bound = (struct sockaddr *)&address6;
        // "::" takes IPv4 too (IPV6_V6ONLY off); any other IPv6 address is IPv6 only.
        flags |= IN6_IS_ADDR_UNSPECIFIED(&address6.sin6_addr) ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    } else {
        errno = EINVAL;
        return NULL;
    }
    // MHD copies the address while binding, so a stack variable is enough. MHD_USE_ITC lets
    // MHD_stop_daemon wake the polling thread at once instead of after its poll timeout.
    return MHD_start_daemon(flags, port, NULL, NULL,
                            handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, bound,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_END);
}

uint16_t pushline_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
