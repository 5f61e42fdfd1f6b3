// Starting a daemon and asking it what it is: the libmicrohttpd version check, the listening
// address, and the callbacks installed at start (declared in include/CMicroHTTPD.h).
#if defined(__linux__)

#include "CMicroHTTPD.h"
#include "internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

/// The libmicrohttpd versions whose internals were read and tested for what the server relies on:
/// - ResponseLease (PreparedResponse.swift) writes a same-length `X-Request-ID` over the header
///   value a shared response object holds: MHD keeps each value in its own heap block and copies
///   it into the connection's buffer when the answer is built, after MHD_queue_response.
/// - `CMicroHTTPD_countArguments` (query_arguments.c) ends the query string inside MHD's read
///   buffer so that MHD parses no arguments: parse_initial_message_line (connection.c) finds the
///   '?' before it calls the URI callback and parses from the byte after it once the callback
///   returns.
/// A new version must be checked against PreparedResponseTests, the pipelined test in
/// Tests/integration/test_02_caching.sh and the argument-limit test in test_03_errors.sh before
/// it is added here.
static const char *const verifiedVersions[] = { "0.9.75" };

int CMicroHTTPD_isVerifiedVersion(const char **version) {
    const char *running = MHD_get_version();
    *version = running;
    if (running == NULL) {
        return 0;
    }
    for (size_t i = 0; i < sizeof verifiedVersions / sizeof verifiedVersions[0]; i++) {
        if (strcmp(running, verifiedVersions[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

/// Keeps the URL and the query arguments exactly as they arrived, so that Swift can
/// percent-decode them strictly and answer 400 to a malformed escape.
static size_t keepEscaped(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

struct MHD_Daemon *CMicroHTTPD_start(
    unsigned int flags,
    const char *host,
    uint16_t port,
    MHD_AccessHandlerCallback handler,
    void *handlerContext,
    MHD_RequestCompletedCallback completed,
    struct CMicroHTTPD_Guard *guard,
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
        errno = EINVAL;
        return NULL;
    }
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handlerContext,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handlerContext,
        MHD_OPTION_NOTIFY_CONNECTION, CMicroHTTPD_notifyConnection, (void *)guard,
        MHD_OPTION_UNESCAPE_CALLBACK, keepEscaped, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, CMicroHTTPD_countArguments, (void *)guard,
        MHD_OPTION_ARRAY, options,
        MHD_OPTION_END);
}

uint16_t CMicroHTTPD_boundPort(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

unsigned int CMicroHTTPD_currentConnections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

#endif  // __linux__
