#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H

// The C side of the HTTP layer: libmicrohttpd's API, plus what Swift cannot do with it alone
// (call variadic functions, walk its value lists without a closure per value) and the few
// scans on the request path that are cheaper in C. This header only declares it; the logic is in
// the .c files beside include/, one per section below (named in its MARK). Only the HTTPServer
// module imports this one.
//
// Which libmicrohttpd: every version from 0.9.75 (Debian 12, Ubuntu 22.04) to 1.0.x (Debian 13,
// 1.0.1), built against either's microhttpd.h. The server uses only what the library documents,
// and only what 0.9.75 already has, so one binary runs on all of them (the library's soname,
// libmicrohttpd.so.12, is the same): it never writes into memory libmicrohttpd owns. At start it
// refuses an older library (`CMicroHTTPD_runningVersion`, HTTPServer.start()). What each
// behaviour relies on, and since when it exists (the version that added it, or "≤ 0.9.51" for
// what predates the project's oldest tagged history; every item is unchanged in 1.0.1):
//
// | behaviour (where)                                   | libmicrohttpd API                                          | since    |
// | --------------------------------------------------- | ---------------------------------------------------------- | -------- |
// | epoll thread pool, suspend/resume (HTTPServer)      | MHD_USE_EPOLL_INTERNAL_THREAD, MHD_ALLOW_SUSPEND_RESUME    | 0.9.53   |
// | quiesce before stopping (HTTPServer.shutdown)       | MHD_USE_ITC, MHD_quiesce_daemon                            | 0.9.52   |
// | the listening socket, made by the server (daemon.c) | MHD_OPTION_LISTEN_SOCKET                                   | ≤ 0.9.51 |
// | open connections, to drain (daemon.c)               | MHD_get_daemon_info(CURRENT_CONNECTIONS)                   | ≤ 0.9.51 |
// | MHD's own messages to the server's log (daemon.c)   | MHD_OPTION_EXTERNAL_LOGGER                                 | ≤ 0.9.51 |
// | the running version (daemon.c)                      | MHD_get_version                                            | ≤ 0.9.51 |
// | strict percent-decoding in Swift (daemon.c)         | MHD_OPTION_UNESCAPE_CALLBACK returning the length unchanged | ≤ 0.9.51 |
// | query-argument limit (query_arguments.c)            | MHD_OPTION_URI_LOG_CALLBACK (reads the URI), its req_cls;  | ≤ 0.9.51 |
// |                                                     | MHD_get_connection_info(CONNECTION_FD) to answer a query   | ≤ 0.9.51 |
// |                                                     | too large to parse on the socket, before MHD parses it     |          |
// | one shared body per answer (HTTPServer+Responses)   | MHD_create_response_from_buffer_with_free_callback_cls     | 0.9.74   |
// | X-Request-ID per answer (PreparedResponse.swift)    | a response object lent to one request at a time, between   | ≤ 0.9.51 |
// |                                                     | MHD_queue_response and MHD_OPTION_NOTIFY_COMPLETED; its    |          |
// |                                                     | header replaced with MHD_del_response_header and           |          |
// |                                                     | MHD_add_response_header while no request holds it          |          |
// | headers, query and memo key in one pass (C)         | MHD_get_connection_values_n                                | 0.9.64   |
// | connection guard (connection_guard.c)               | MHD_OPTION_NOTIFY_CONNECTION, CONNECTION_INFO_SOCKET_CONTEXT | 0.9.51 |
// | client address for the access log (access_log.c)    | MHD_get_connection_info(CLIENT_ADDRESS)                    | ≤ 0.9.51 |
//
// Differences between the versions that the server sees are in the MHD's own answers to
// malformed requests (1.0's request-line parser is stricter and answers 431 where 0.9.75 closed
// the connection); none of them changes an answer the server gives.

// microhttpd.h expects these to be included first.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <microhttpd.h>

#if !defined(MHD_VERSION) || MHD_VERSION < 0x00097500
#error "libmicrohttpd 0.9.75 or newer is needed (Debian: apt-get install libmicrohttpd-dev)"
#endif

/// See "Slow and idle connections" below.
struct CMicroHTTPD_Guard;

// MARK: - Starting and asking the daemon (daemon.c)

/// A libmicrohttpd version.
struct CMicroHTTPD_Version {
    unsigned int major;
    unsigned int minor;
    unsigned int patch;
    /// As the library spells it (`MHD_get_version()`); NULL when it reports none.
    const char *text;
};

/// The version of the libmicrohttpd the process has loaded (not the one it was built against):
/// what the dynamic linker found. The fields are 0 when the version text cannot be read.
struct CMicroHTTPD_Version CMicroHTTPD_runningVersion(void);

/// Receives each message libmicrohttpd logs (MHD_OPTION_EXTERNAL_LOGGER), formatted, without
/// its trailing newline; called on whichever thread MHD logs from.
typedef void (*CMicroHTTPD_LogSink)(void *context, const char *message);

/// A listening TCP socket on `host` (an IPv4 or IPv6 literal) and `port` (0 picks a free one),
/// non-blocking, with SO_REUSEADDR (and IPV6_V6ONLY on IPv6), as libmicrohttpd makes its own:
/// the server makes it itself so that a failure to bind is known by its errno, which
/// MHD_start_daemon does not promise to keep (1.0.1 does not). Returns the socket, with the
/// port it is bound to in `*boundPort` and whether it is IPv6 in `*isIPv6`; or -1 with errno's
/// value in `*error` (EINVAL when `host` is not an IP literal).
int CMicroHTTPD_listen(const char *host, uint16_t port, int *error, uint16_t *boundPort, int *isIPv6);

/// Starts a daemon on `listenSocket` (from `CMicroHTTPD_listen`; MHD_OPTION_LISTEN_SOCKET).
/// `options` is an MHD_OPTION_END-terminated array for the tunables. `guard` is told about
/// every connection, and holds the query-argument limits (see
/// `CMicroHTTPD_tooManyArgumentsMarker`); it must outlive the daemon. `log` receives MHD's own
/// messages, which would otherwise go to stderr.
/// Returns NULL when MHD could not start; its messages then say why. The socket is MHD's from
/// this call on, even then: 1.0 closes it on failure, 0.9.75 leaves it to the process (which
/// exits), so the caller must not close it.
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
);

/// The number of open connections, used to drain before stopping.
unsigned int CMicroHTTPD_currentConnections(struct MHD_Daemon *daemon);

// MARK: - The query-argument limit (query_arguments.c)

/// The value `con_cls` holds on the first access-handler call of a request whose query has more
/// than the daemon's `maxArguments` arguments (all parsed: they fit in the connection's memory).
/// The request must be refused.
void *CMicroHTTPD_tooManyArgumentsMarker(void);

/// The value `con_cls` holds on the first access-handler call of a request whose query's
/// arguments would not fit in the connection's memory with room for an answer: the URI callback
/// has answered it already (a 400, `CMicroHTTPD_guardSetOverflowAnswer`) and ended the
/// connection's sending side; nothing more is to be answered.
void *CMicroHTTPD_argumentsOverflowMarker(void);

/// Whether the records of `count` query arguments, in a request target of `targetLength` bytes,
/// fit in a connection memory pool of `memoryLimit` bytes (MHD_OPTION_CONNECTION_MEMORY_LIMIT)
/// beside the read buffer that holds the request line, with room left for the rest of the head
/// and the answer: 1 or 0. An estimate on the safe side for both 0.9.75 and 1.0.x (the record
/// size measured on both: about 210 short arguments at 16 KiB; fewer, longer ones).
int CMicroHTTPD_argumentsFit(size_t targetLength, size_t count, size_t memoryLimit);

/// Sets the answer the URI callback writes itself to a request whose query's arguments do not
/// fit (see `CMicroHTTPD_argumentsOverflowMarker`): `head` is the status line and the fixed header
/// lines (each ending in CRLF, without Date, X-Request-ID, Content-Length, Connection and the
/// blank line, which are added per request), `body` the content, in which the 16 bytes at
/// `idOffset` (SIZE_MAX: none) are replaced by the request's id. Returns 0, or -1 when they do
/// not fit in the 2 KiB kept for them. Call before the daemon starts.
int CMicroHTTPD_guardSetOverflowAnswer(
    struct CMicroHTTPD_Guard *guard,
    const char *head,
    size_t headLength,
    const char *body,
    size_t bodyLength,
    size_t idOffset
);

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
/// connections when the server nears its connection limit. libmicrohttpd (0.9.75 and 1.0.x) has
/// only an idle timeout, which every received byte resets. (Declared at the top.)

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
    /// Connections the URI callback closed since the previous sweep, their query's arguments
    /// too large for the connection's memory (`CMicroHTTPD_argumentsFit`).
    unsigned int argumentsOverflow;
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
