#ifndef APNSD_CMICROHTTPD_SHIM_H
#define APNSD_CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic: Swift cannot call it. One wrapper takes the request-completed callback (a function
// pointer plus its argument, awkward to pass as an intptr_t) and every other option as an MHD_OptionItem array
// ending in {MHD_OPTION_END, 0, NULL}. The port comes from the MHD_OPTION_SOCK_ADDR option. NULL on failure (errno).
static inline struct MHD_Daemon *apnsd_mhd_start(unsigned int flags,
                                                 MHD_AccessHandlerCallback handler, void *handler_cls,
                                                 MHD_RequestCompletedCallback completed, void *completed_cls,
                                                 const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

// MHD_get_daemon_info / MHD_get_connection_info are variadic too: one wrapper per value we read.
static inline uint16_t apnsd_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
static inline const struct sockaddr *apnsd_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
// The connection's socket, for the connection watch's deadlines (shutdown, never close: libmicrohttpd owns it).
static inline int apnsd_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
#endif
