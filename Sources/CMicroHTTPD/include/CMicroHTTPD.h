#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H

// The C side of the HTTP layer: libmicrohttpd's API, plus what Swift cannot do with it alone
// (call variadic functions, walk its value lists without a closure per value) and the few
// scans on the request path that are cheaper in C. This header only declares it; the logic is in
// the .c files beside include/, one per section below (named in its MARK). Only the HTTPServer
// module imports this one.

// microhttpd.h expects these to be included first.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <microhttpd.h>

/// See "Slow and idle connections" below.
struct CMicroHTTPD_Guard;

// MARK: - Starting and asking the daemon (daemon.c)

/// Whether the running libmicrohttpd is a version whose internals the server relies on were
/// checked against (the in-place `X-Request-ID` write and the query-argument limit; see
/// daemon.c). Returns 1 when it is, 0 otherwise; `*version` is set to the running version.
int CMicroHTTPD_isVerifiedVersion(const char **version);

/// Starts a daemon listening on `host` (an IPv4 or IPv6 literal) and `port` (0 picks a free one).
/// `options` is an MHD_OPTION_END-terminated array for the tunables. `guard` is told about
/// every connection, and holds the query-argument limits (see
/// `CMicroHTTPD_tooManyArgumentsMarker`); it must outlive the daemon.
/// Returns NULL when `host` is not an IP literal or MHD could not start (the reason is in errno
/// and MHD's error log).
struct MHD_Daemon *CMicroHTTPD_start(
    unsigned int flags,
    const char *host,
    uint16_t port,
    MHD_AccessHandlerCallback handler,
    void *handlerContext,
    MHD_RequestCompletedCallback completed,
    struct CMicroHTTPD_Guard *guard,
    const struct MHD_OptionItem *options
);

/// The port the daemon is bound to (useful after asking for port 0).
uint16_t CMicroHTTPD_boundPort(struct MHD_Daemon *daemon);

/// The number of open connections, used to drain before stopping.
unsigned int CMicroHTTPD_currentConnections(struct MHD_Daemon *daemon);

// MARK: - The query-argument limit (query_arguments.c)

/// The value `con_cls` holds on the first access-handler call of a request whose query has more
/// than the daemon's `maxArguments` arguments. Its arguments were not parsed (they would have
/// taken the connection's memory, leaving none for the answer), so the request must be refused.
void *CMicroHTTPD_tooManyArgumentsMarker(void);

/// The value `con_cls` holds on the first access-handler call of a request whose query
/// arguments would not fit in the connection's memory beside its request line (few, but long,
/// arguments near the limit); likewise not parsed.
void *CMicroHTTPD_argumentsTooLargeMarker(void);

// MARK: - The access log (access_log.c)

/// Writes the client's IP address as text into `buffer`; returns 0 on success, -1 when unknown.
/// IPv4 is formatted by hand (it is on every access-log line; glibc's inet_ntop goes through
/// sprintf), IPv6 by inet_ntop.
int CMicroHTTPD_clientAddress(struct MHD_Connection *connection, char *buffer, socklen_t capacity);

// MARK: - Threads and CPUs (threads.c)

/// Records the connection whose access handler runs on this thread (NULL when none does).
void CMicroHTTPD_setCurrentConnection(struct MHD_Connection *connection);

/// The connection whose access handler runs on this thread, or NULL.
struct MHD_Connection *CMicroHTTPD_currentConnection(void);

/// A pointer per thread for the Swift side, tagged with the id of the object that set it, so a
/// thread that served another owner before never takes that owner's pointer for its own. The
/// access log keeps each MHD thread's buffer here (AccessLog.swift).
struct CMicroHTTPD_ThreadSlot {
    uint64_t owner;
    void *value;
};

/// This thread's slot (zeroed when the thread starts).
struct CMicroHTTPD_ThreadSlot *CMicroHTTPD_threadSlot(void);

/// Names the calling thread (at most 15 bytes are kept), as `top -H` and /proc show it.
void CMicroHTTPD_nameThread(const char *name);

/// The number of CPUs this process may run on: its affinity mask (taskset, a container's
/// cpuset), or the online CPUs when the mask cannot be read.
int CMicroHTTPD_usableCores(void);

/// Raises the calling thread's nice value (Linux schedules threads individually); 0 on success.
int CMicroHTTPD_lowerThreadPriority(int niceness);

// MARK: - Headers (headers.c)

/// The first value of request header `name` (compared case-insensitively), or NULL when the
/// request has none; `*count` is set to how many times the header occurs. One pass in C: most
/// lookups find nothing, or one value, and need no Swift string work.
const char *CMicroHTTPD_headerValue(struct MHD_Connection *connection, const char *name, unsigned int *count);

/// What the first call for a request needs to know about its framing (body headers) and `Host`.
struct CMicroHTTPD_MessageHeaders {
    /// The first `Content-Length` value, or NULL.
    const char *contentLength;
    /// Whether a later `Content-Length` has another value than the first (RFC 9112 §6.3: the
    /// message's framing is unknowable, and a proxy that reads the other one can smuggle a
    /// request past this server).
    int conflictingContentLength;
    /// Whether there is a `Transfer-Encoding` header.
    int transferEncoding;
    /// Whether there is a `Host` header.
    int host;
};

/// What framing and routing need from the headers of the request on `connection`
/// (`Content-Length`, `Transfer-Encoding`, `Host`), in one pass over them.
struct CMicroHTTPD_MessageHeaders CMicroHTTPD_messageHeaders(struct MHD_Connection *connection);

/// One header into `found` (an MHD_KeyValueIteratorN); exposed for the fuzz targets.
enum MHD_Result CMicroHTTPD_scanMessageHeader(
    void *found, enum MHD_ValueKind kind, const char *key, size_t keySize, const char *value, size_t valueSize
);

// MARK: - The memo key (memo_key.c)

/// Builds the key of a remembered answer (see ResponseMemo.swift): everything about a request
/// that may change the answer, as fields of one tag byte, a 2-byte big-endian length and the
/// bytes. Tags: 'M' method, 'U' URL, 'K' query argument name, 'V' its value ('N' when it has
/// none), 0x80 + i a value of header `names[i]`. Tagged, length-prefixed fields make two requests
/// have equal keys only when they agree on every field, in order. On the way it notes the first
/// value of the header `capture` (the request id), which then needs no lookup of its own.
struct CMicroHTTPD_KeyWriter {
    uint8_t *buffer;
    size_t capacity;
    size_t length;
    int overflow;
    const char *const *names;
    const size_t *nameLengths;
    unsigned int nameCount;
    const char *capture;
    size_t captureLength;
    const char *captured;
    size_t capturedLength;
};

/// Appends one field to the key; on overflow the key is marked and left as it was.
void CMicroHTTPD_appendKeyField(struct CMicroHTTPD_KeyWriter *writer, uint8_t tag, const char *text, size_t count);

/// One query argument or header into `writer` (an MHD_KeyValueIteratorN); exposed for the fuzz
/// targets.
enum MHD_Result CMicroHTTPD_keyValue(
    void *writer, enum MHD_ValueKind kind, const char *key, size_t keySize, const char *value, size_t valueSize
);

/// The key of a request, and the first value of the captured header.
struct CMicroHTTPD_RequestKey {
    /// The key's length in the buffer; 0 when it did not fit.
    size_t length;
    /// The captured header's first value (in the connection's memory), or NULL when absent.
    const char *captured;
    size_t capturedLength;
};

/// Writes the key of the request on `connection` into `buffer`: the method, the URL as it
/// arrived, every query argument in order, and every value of the headers in `names` (at most
/// 127, with their lengths in `nameLengths`) in arrival order. Also finds header `capture`.
struct CMicroHTTPD_RequestKey CMicroHTTPD_requestKey(
    struct MHD_Connection *connection,
    const char *method,
    const char *url,
    const char *const *names,
    const size_t *nameLengths,
    unsigned int nameCount,
    const char *capture,
    uint8_t *buffer,
    size_t capacity
);

/// A 64-bit hash of `count` bytes, seeded per process. Only picks a key's slot: keys are
/// compared whole, so a collision costs a probe, never a wrong answer.
uint64_t CMicroHTTPD_hashKey(const uint8_t *bytes, size_t count, uint64_t seed);

// MARK: - Slow and idle connections (connection_guard.c)

/// Every open connection of a daemon, with how long it has been waiting for a request's line and
/// headers: what cuts off clients that send them too slowly, and sheds the longest-waiting
/// connections when the server nears its connection limit. libmicrohttpd 0.9.75 has only an
/// idle timeout, which every received byte resets. (Declared at the top.)

/// A guard for a daemon whose requests may carry `maxArguments` query arguments, in a connection
/// memory pool of `memoryLimit` bytes (MHD_OPTION_CONNECTION_MEMORY_LIMIT); NULL when out of
/// memory. Pass it to `CMicroHTTPD_start`.
struct CMicroHTTPD_Guard *CMicroHTTPD_guardCreate(unsigned int maxArguments, size_t memoryLimit);

/// Frees the guard; only after the daemon it watched has stopped.
void CMicroHTTPD_guardDestroy(struct CMicroHTTPD_Guard *guard);

/// The request on `connection` has all its headers: it is no longer waiting.
void CMicroHTTPD_guardHeadReceived(struct MHD_Connection *connection);

/// The request on `connection` is answered: the connection waits for the next one from now.
void CMicroHTTPD_guardRequestDone(struct MHD_Connection *connection);

/// The number of connections whose request is being handled (its head has arrived, its answer
/// is not done).
unsigned int CMicroHTTPD_guardBusy(struct CMicroHTTPD_Guard *guard);

/// What one sweep did.
struct CMicroHTTPD_SweepResult {
    /// Connections open.
    unsigned int open;
    /// Connections waiting for a request's head now.
    unsigned int waiting;
    /// Connections closed because their head did not arrive within the deadline.
    unsigned int timedOut;
    /// Keep-alive connections closed because no request came within the idle timeout.
    unsigned int idle;
    /// Connections closed to make room near the connection limit.
    unsigned int shed;
};

/// Closes (`shutdown(2)`, so that libmicrohttpd sees the end and cleans up on its own thread)
/// every connection whose request's head has been arriving longer than `headerTimeoutNanoseconds`
/// (counted from the connection's start for its first request, from the first byte seen after
/// the previous answer for the next ones), and every keep-alive connection on which nothing has
/// arrived for `idleTimeoutNanoseconds` since its previous answer; then, while more than `shedAbove` stay open, the ones that have waited longest (and at least
/// `shedAfterNanoseconds`) until `shedTo` remain. `now` is CLOCK_MONOTONIC in nanoseconds.
struct CMicroHTTPD_SweepResult CMicroHTTPD_guardSweep(
    struct CMicroHTTPD_Guard *guard,
    int64_t now,
    int64_t headerTimeoutNanoseconds,
    int64_t idleTimeoutNanoseconds,
    int64_t shedAfterNanoseconds,
    unsigned int shedAbove,
    unsigned int shedTo
);

/// CLOCK_MONOTONIC in nanoseconds.
int64_t CMicroHTTPD_monotonicNanoseconds(void);

#endif
