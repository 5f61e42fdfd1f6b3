#ifndef CMICROHTTPD_INTERNAL_H
#define CMICROHTTPD_INTERNAL_H

// What the module's C files share and Swift never sees (this header is outside include/): the
// connection guard's state, which the URI callback reads its limits from, and the callbacks
// daemon.c installs when it starts a daemon. The public API is include/CMicroHTTPD.h.

#include "CMicroHTTPD.h"

#include <pthread.h>
#include <stdatomic.h>

/// Where a daemon's messages go: the sink and its context (daemon.c formats them).
struct LogTarget {
    CMicroHTTPD_LogSink sink;
    void *context;
};

/// Room in an answer's bytes for what `sendOverflowAnswer` adds to the head: Date, X-Request-ID,
/// Content-Length and Connection.
enum { overflowAnswerHeadroom = 160 };

/// The answer to a query whose arguments do not fit (query_arguments.c): its status line and
/// fixed headers, then its body, whose request id (16 bytes at `idOffset`, SIZE_MAX for none) is
/// replaced per request. Empty (`headLength` 0) until the server sets it.
struct OverflowAnswer {
    char bytes[2048];
    size_t headLength;
    size_t bodyLength;
    size_t idOffset;
};

/// One open connection (connection_guard.c).
struct GuardedConnection;

/// A daemon's connection guard (see "Slow and idle connections" in CMicroHTTPD.h), which also
/// holds what the daemon's other callbacks need for as long as it runs.
struct CMicroHTTPD_Guard {
    /// Where MHD's messages go (MHD_OPTION_EXTERNAL_LOGGER; set by CMicroHTTPD_start).
    struct LogTarget logTarget;
    /// Query arguments a request may carry, and the connection memory limit they must fit in
    /// (read by the URI callback; set once, before the daemon starts).
    unsigned int maxArguments;
    size_t memoryLimit;
    /// Connections the URI callback answered and closed because their query's arguments would
    /// not fit in `memoryLimit` (see `CMicroHTTPD_argumentsFit`), and its answer.
    _Atomic unsigned long overflowClosed;
    struct OverflowAnswer overflowAnswer;
    /// Held while a connection is added or removed, and for a whole sweep. The sweep's
    /// `shutdown(fd)` happens under it, and MHD calls NOTIFY_CLOSED (which removes the record)
    /// before it closes the socket (MHD_cleanup_connections, daemon.c): so a swept descriptor is
    /// always still the connection's own, never a number the kernel has since given to another.
    pthread_mutex_t mutex;
    struct GuardedConnection *head;
    unsigned int count;
};

/// The URI callback (MHD_OPTION_URI_LOG_CALLBACK, with the guard as `cls`): counts the query's
/// arguments before MHD parses them, without changing them. In query_arguments.c.
__attribute__((visibility("hidden"))) void *CMicroHTTPD_countArguments(
    void *cls, const char *uri, struct MHD_Connection *connection
);

/// The connection callback (MHD_OPTION_NOTIFY_CONNECTION, with the guard as `cls`): lists a
/// connection with the guard when it opens and unlists it when it closes. In connection_guard.c.
__attribute__((visibility("hidden"))) void CMicroHTTPD_notifyConnection(
    void *cls, struct MHD_Connection *connection, void **socketContext, enum MHD_ConnectionNotificationCode code
);

#endif
