#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

// microhttpd.h expects these to be included first.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <stdarg.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// Swift cannot call C variadic functions; these non-variadic wrappers stand in for
// MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info.

/// Keeps the URL and the query arguments exactly as they arrived, so that Swift can
/// percent-decode them strictly and answer 400 to a malformed escape.
static inline size_t CMicroHTTPD_keepEscaped(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// Starts a daemon listening on `host` (an IPv4 or IPv6 literal) and `port` (0 picks a free one).
/// `options` is an MHD_OPTION_END-terminated array for the tunables.
/// Returns NULL when `host` is not an IP literal or MHD could not start (the reason is in errno
/// and MHD's error log).
static inline struct MHD_Daemon *CMicroHTTPD_start(
    unsigned int flags,
    const char *host,
    uint16_t port,
    MHD_AccessHandlerCallback handler,
    void *handlerContext,
    MHD_RequestCompletedCallback completed,
    const struct MHD_OptionItem *options
) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handlerContext,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handlerContext,
        MHD_OPTION_UNESCAPE_CALLBACK, CMicroHTTPD_keepEscaped, NULL,
        MHD_OPTION_ARRAY, options,
        MHD_OPTION_END);
}

/// The port the daemon is bound to (useful after asking for port 0).
static inline uint16_t CMicroHTTPD_boundPort(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The number of open connections, used to drain before stopping.
static inline unsigned int CMicroHTTPD_currentConnections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// Writes the client's IP address as text into `buffer`; returns 0 on success, -1 when unknown.
static inline int CMicroHTTPD_clientAddress(struct MHD_Connection *connection, char *buffer, socklen_t capacity) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) {
        return -1;
    }
    const struct sockaddr *address = info->client_addr;
    const void *raw;
    if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, capacity) == NULL ? -1 : 0;
}

struct CMicroHTTPD_HeaderScan {
    const char *name;
    const char *first;
    unsigned int count;
};

static enum MHD_Result CMicroHTTPD_scanHeader(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct CMicroHTTPD_HeaderScan *scan = (struct CMicroHTTPD_HeaderScan *)cls;
    if (key != NULL && strcasecmp(key, scan->name) == 0) {
        if (scan->count++ == 0) {
            scan->first = value == NULL ? "" : value;
        }
    }
    return MHD_YES;
}

/// The first value of request header `name` (compared case-insensitively), or NULL when the
/// request has none; `*count` is set to how many times the header occurs. One pass in C: most
/// lookups find nothing, or one value, and need no Swift string work.
static inline const char *CMicroHTTPD_headerValue(struct MHD_Connection *connection, const char *name, unsigned int *count) {
    struct CMicroHTTPD_HeaderScan scan = { name, NULL, 0 };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, CMicroHTTPD_scanHeader, &scan);
    *count = scan.count;
    return scan.first;
}

/// The number of CPUs this process may run on: its affinity mask (taskset, a container's
/// cpuset), or the online CPUs when the mask cannot be read. A raw system call, so that the
/// header needs no _GNU_SOURCE.
static inline int CMicroHTTPD_usableCores(void) {
    unsigned long mask[64];
    memset(mask, 0, sizeof mask);
    long written = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (written > 0) {
        int count = 0;
        for (size_t i = 0; i < (size_t)written / sizeof mask[0]; i++) {
            count += __builtin_popcountl(mask[i]);
        }
        if (count > 0) {
            return count;
        }
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

/// Raises the calling thread's nice value (Linux schedules threads individually); 0 on success.
static inline int CMicroHTTPD_lowerThreadPriority(int niceness) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness);
}

#endif
