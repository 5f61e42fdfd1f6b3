// Starting a daemon and asking it what it is: the running libmicrohttpd's version, the listening
// socket (made here and handed to MHD, so that a bind that fails says why), and the callbacks
// installed at start (declared in include/CMicroHTTPD.h; the API each
// uses, and since which version, is in the table there).
#if defined(__linux__)

#include "CMicroHTTPD.h"
#include "internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct CMicroHTTPD_Version CMicroHTTPD_runningVersion(void) {
    // MHD_get_version() (0.9.x and 1.0.x): "MAJOR.MINOR.PATCH". MHD_get_version_bin() would give
    // a number, but it exists only since 0.9.76.
    struct CMicroHTTPD_Version version = { 0, 0, 0, MHD_get_version() };
    const char *text = version.text;
    unsigned int *parts[] = { &version.major, &version.minor, &version.patch };
    for (size_t i = 0; text != NULL && i < 3; i++) {
        unsigned int value = 0;
        int digits = 0;
        for (; *text >= '0' && *text <= '9' && digits < 6; text++, digits++) {
            value = value * 10 + (unsigned int)(*text - '0');
        }
        if (digits == 0) {
            break;
        }
        *parts[i] = value;
        if (*text != '.') {
            break;
        }
        text++;
    }
    return version;
}

/// Keeps the URL and the query arguments exactly as they arrived, so that Swift can
/// percent-decode them strictly and answer 400 to a malformed escape.
static size_t keepEscaped(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// MHD_OPTION_EXTERNAL_LOGGER's callback: formats the message (a line, cut at 511 bytes) and
/// hands it over without its newline.
static void formatMessage(void *cls, const char *format, va_list arguments) {
    const struct LogTarget *target = (const struct LogTarget *)cls;
    char line[512];
    int length = vsnprintf(line, sizeof line, format, arguments);
    if (length < 0) {
        return;
    }
    size_t end = (size_t)length < sizeof line ? (size_t)length : sizeof line - 1;
    while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) {
        line[--end] = '\0';
    }
    target->sink(target->context, line);
}

int CMicroHTTPD_listen(const char *host, uint16_t port, int *error, uint16_t *boundPort, int *isIPv6) {
    struct sockaddr_storage storage;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    socklen_t length;
    memset(&storage, 0, sizeof storage);
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        length = sizeof *v4;
        *isIPv6 = 0;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        length = sizeof *v6;
        *isIPv6 = 1;
    } else {
        *error = EINVAL;
        return -1;
    }
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = errno;
        return -1;
    }
    // What libmicrohttpd does with a socket of its own: SO_REUSEADDR, so that a restarted server
    // binds past TIME_WAIT (never SO_REUSEPORT, with which a second instance would bind the same
    // port and silently take a share of the connections), and IPv6 only on an IPv6 address.
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (*isIPv6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    }
    if (bind(fd, (const struct sockaddr *)&storage, length) != 0 || listen(fd, SOMAXCONN) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    length = sizeof storage;
    if (getsockname(fd, (struct sockaddr *)&storage, &length) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    *boundPort = ntohs(storage.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
    *error = 0;
    return fd;
}

struct MHD_Daemon *CMicroHTTPD_start(
    unsigned int flags,
    int listenSocket,
    int isIPv6,
    MHD_AccessHandlerCallback handler,
    void *handlerContext,
    MHD_RequestCompletedCallback completed,
    struct CMicroHTTPD_Guard *guard,
    CMicroHTTPD_LogSink log,
    void *logContext,
    const struct MHD_OptionItem *options
) {
    if (isIPv6) {
        flags |= MHD_USE_IPv6;
    }
    // The logger outlives the daemon: the guard is freed only after the daemon stopped, and so
    // is this (it is the guard's).
    guard->logTarget.sink = log;
    guard->logTarget.context = logContext;
    // The logger first: MHD reads options in order, and may log while it reads the later ones.
    // The port argument is ignored with MHD_OPTION_LISTEN_SOCKET.
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handlerContext,
        MHD_OPTION_EXTERNAL_LOGGER, formatMessage, (void *)&guard->logTarget,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listenSocket,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handlerContext,
        MHD_OPTION_NOTIFY_CONNECTION, CMicroHTTPD_notifyConnection, (void *)guard,
        MHD_OPTION_UNESCAPE_CALLBACK, keepEscaped, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, CMicroHTTPD_countArguments, (void *)guard,
        MHD_OPTION_ARRAY, options,
        MHD_OPTION_END);
}

unsigned int CMicroHTTPD_currentConnections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

#endif  // __linux__
