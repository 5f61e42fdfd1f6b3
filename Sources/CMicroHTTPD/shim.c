// The C side of the HTTP layer (declared in include/CMicroHTTPD.h). Linux only, like the service:
// it uses sched_getaffinity, gettid and setpriority's per-thread meaning on Linux.
#if defined(__linux__)

#define _GNU_SOURCE
#include "CMicroHTTPD.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// The key's length prefix is two bytes, and the hash reads 8-byte words.
_Static_assert(sizeof(uint64_t) == 8, "the key hash reads 8-byte words");
_Static_assert(sizeof(size_t) >= 4, "key fields up to 0xFFFF bytes must be countable");

// MARK: - State (see "Slow and idle connections" below)

/// One open connection. `waitingSince` is written by the connection's MHD thread (a request's
/// head arrived: 0; its answer is done: now) and read by the sweeping thread, hence atomic; the
/// list links and `fd` are only touched under the guard's mutex.
struct GuardedConnection {
    struct GuardedConnection *previous;
    struct GuardedConnection *next;
    int fd;
    /// CLOCK_MONOTONIC nanoseconds since which the connection waits for a request's head; 0 while
    /// a request is being handled; -1 once the guard has closed it.
    _Atomic int64_t waitingSince;
};

struct CMicroHTTPD_Guard {
    /// Query arguments a request may carry, and the connection memory limit they must fit in
    /// (read by the URI callback; set once, before the daemon starts).
    unsigned int maxArguments;
    size_t memoryLimit;
    /// Held while a connection is added or removed, and for a whole sweep. The sweep's
    /// `shutdown(fd)` happens under it, and MHD calls NOTIFY_CLOSED (which removes the record)
    /// before it closes the socket (MHD_cleanup_connections, daemon.c): so a swept descriptor is
    /// always still the connection's own, never a number the kernel has since given to another.
    pthread_mutex_t mutex;
    struct GuardedConnection *head;
    unsigned int count;
};

// MARK: - Starting and asking the daemon

/// The libmicrohttpd versions whose internals were read and tested for what the server relies on:
/// - ResponseLease (PreparedResponse.swift) writes a same-length `X-Request-ID` over the header
///   value a shared response object holds: MHD keeps each value in its own heap block and copies
///   it into the connection's buffer when the answer is built, after MHD_queue_response.
/// - `countArguments` below ends the query string inside MHD's read buffer so that MHD parses no
///   arguments: parse_initial_message_line (connection.c) finds the '?' before it calls the URI
///   callback and parses from the byte after it once the callback returns.
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

/// Distinct addresses for the markers: never a valid object, never one of the small tagged
/// values the Swift side keeps in `con_cls` (1, and pointers with bit 1 set).
static char tooManyArguments;
static char argumentsTooLarge;

void *CMicroHTTPD_tooManyArgumentsMarker(void) {
    return &tooManyArguments;
}

void *CMicroHTTPD_argumentsTooLargeMarker(void) {
    return &argumentsTooLarge;
}

/// Bytes MHD 0.9.75 takes from the connection's pool for one parsed argument (a `struct
/// MHD_HTTP_Header`: two list links, two string pointers, two lengths and the kind; 56 bytes on
/// 64-bit Linux), rounded up.
enum { argumentRecordBytes = 64 };
/// Pool bytes kept free for the headers' records and the answer's header lines.
enum { answerReserveBytes = 4096 };

/// The URI callback: counts the query's arguments before MHD parses them. Each parsed argument
/// takes a record in the connection's memory pool (MHD_OPTION_CONNECTION_MEMORY_LIMIT), so a
/// request with a few hundred short arguments that fits the limit leaves no room to build any
/// answer: MHD then closes the connection without a word, or stalls until the idle timeout. Past
/// the limit the query is ended at its first byte, so MHD parses nothing, and the request is
/// marked for the access handler to refuse. So is a query whose arguments' records would not
/// fit in the pool beside the request line (a few dozen long arguments near the limit): MHD's
/// own answer to that (431) needs memory too, and it stalls instead.
static void *countArguments(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void)connection;
    const struct CMicroHTTPD_Guard *limits = (const struct CMicroHTTPD_Guard *)cls;
    const char *query = uri == NULL ? NULL : strchr(uri, '?');
    if (query == NULL) {
        return NULL;
    }
    // Every '&' may start an argument (MHD makes a record even for an empty one).
    size_t count = 1;
    const char *end = query + 1;
    for (; *end != '\0'; end++) {
        count += (*end == '&');
    }
    void *marker = NULL;
    if (count > limits->maxArguments) {
        marker = &tooManyArguments;
    } else if ((size_t)(end - uri) + count * argumentRecordBytes + answerReserveBytes > limits->memoryLimit) {
        marker = &argumentsTooLarge;
    }
    if (marker != NULL) {
        // `uri` points into MHD's own, writable, read buffer (MHD declares it const only for the
        // callback's signature); see `verifiedVersions`.
        ((char *)query)[1] = '\0';
    }
    return marker;
}

static void notifyConnection(
    void *cls, struct MHD_Connection *connection, void **socketContext, enum MHD_ConnectionNotificationCode code
);

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
        MHD_OPTION_NOTIFY_CONNECTION, notifyConnection, (void *)guard,
        MHD_OPTION_UNESCAPE_CALLBACK, keepEscaped, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, countArguments, (void *)guard,
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

void CMicroHTTPD_nameThread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

int CMicroHTTPD_clientAddress(struct MHD_Connection *connection, char *buffer, socklen_t capacity) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) {
        return -1;
    }
    const struct sockaddr *address = info->client_addr;
    const void *raw;
    if (address->sa_family == AF_INET && capacity >= INET_ADDRSTRLEN) {
        // memcpy: the address has no alignment guarantee for the uint32_t it holds.
        uint32_t host;
        memcpy(&host, &((const struct sockaddr_in *)address)->sin_addr, sizeof host);
        const uint8_t *octets = (const uint8_t *)&host;
        char *out = buffer;
        for (int i = 0; i < 4; i++) {
            unsigned value = octets[i];
            if (value >= 100) {
                *out++ = (char)('0' + value / 100);
                value %= 100;
                *out++ = (char)('0' + value / 10);
                value %= 10;
            } else if (value >= 10) {
                *out++ = (char)('0' + value / 10);
                value %= 10;
            }
            *out++ = (char)('0' + value);
            *out++ = i < 3 ? '.' : '\0';
        }
        return 0;
    } else if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, capacity) == NULL ? -1 : 0;
}

/// 1 for the bytes `CMicroHTTPD_plainRun` passes: 0x20–0x7E without '"' (0x22) and '\\' (0x5C).
static const uint8_t plainBytes[256] = { [0x20 ... 0x21] = 1, [0x23 ... 0x5B] = 1, [0x5D ... 0x7E] = 1 };

size_t CMicroHTTPD_plainRun(const uint8_t *bytes, size_t count) {
    size_t index = 0;
    while (index < count && plainBytes[bytes[index]]) {
        index++;
    }
    return index;
}

// MARK: - The request being handled on this thread

static _Thread_local struct MHD_Connection *currentConnection;

void CMicroHTTPD_setCurrentConnection(struct MHD_Connection *connection) {
    currentConnection = connection;
}

struct MHD_Connection *CMicroHTTPD_currentConnection(void) {
    return currentConnection;
}

static _Thread_local struct CMicroHTTPD_ThreadSlot threadSlot;

struct CMicroHTTPD_ThreadSlot *CMicroHTTPD_threadSlot(void) {
    return &threadSlot;
}

// MARK: - Headers

struct HeaderScan {
    const char *name;
    const char *first;
    unsigned int count;
};

static enum MHD_Result scanHeader(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct HeaderScan *scan = (struct HeaderScan *)cls;
    if (key != NULL && strcasecmp(key, scan->name) == 0) {
        if (scan->count++ == 0) {
            scan->first = value == NULL ? "" : value;
        }
    }
    return MHD_YES;
}

const char *CMicroHTTPD_headerValue(struct MHD_Connection *connection, const char *name, unsigned int *count) {
    struct HeaderScan scan = { name, NULL, 0 };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, scanHeader, &scan);
    *count = scan.count;
    return scan.first;
}

enum MHD_Result CMicroHTTPD_scanMessageHeader(
    void *cls, enum MHD_ValueKind kind, const char *key, size_t keySize, const char *value, size_t valueSize
) {
    (void)kind;
    (void)valueSize;
    struct CMicroHTTPD_MessageHeaders *found = (struct CMicroHTTPD_MessageHeaders *)cls;
    if (key == NULL) {
        return MHD_YES;
    }
    // The names are compared with their lengths first: strncasecmp must not read past the end of
    // a key shorter than the name (MHD's keys are NUL-terminated, but a fuzzer's need not be).
    if (keySize == 4 && strncasecmp(key, "Host", 4) == 0) {
        found->host = 1;
    } else if (keySize == 14 && strncasecmp(key, "Content-Length", 14) == 0) {
        const char *text = value == NULL ? "" : value;
        if (found->contentLength == NULL) {
            found->contentLength = text;
        } else if (strcmp(found->contentLength, text) != 0) {
            found->conflictingContentLength = 1;
        }
    } else if (keySize == 17 && strncasecmp(key, "Transfer-Encoding", 17) == 0) {
        found->transferEncoding = 1;
    }
    return MHD_YES;
}

struct CMicroHTTPD_MessageHeaders CMicroHTTPD_messageHeaders(struct MHD_Connection *connection) {
    struct CMicroHTTPD_MessageHeaders found = { NULL, 0, 0, 0 };
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, CMicroHTTPD_scanMessageHeader, &found);
    return found;
}

// MARK: - The memo key

void CMicroHTTPD_appendKeyField(struct CMicroHTTPD_KeyWriter *writer, uint8_t tag, const char *text, size_t count) {
    // Compared as `capacity - length < needed`, never `length + needed > capacity`: the sum could
    // wrap around for a huge count. `length <= capacity` always holds, so the subtraction cannot.
    if (writer->overflow || count > 0xFFFF || writer->capacity - writer->length < 3 + count) {
        writer->overflow = 1;
        return;
    }
    uint8_t *out = writer->buffer + writer->length;
    out[0] = tag;
    out[1] = (uint8_t)(count >> 8);
    out[2] = (uint8_t)count;
    // memcpy with a NULL source is undefined even for 0 bytes, and an empty value may be NULL.
    if (count > 0) {
        memcpy(out + 3, text, count);
    }
    writer->length += 3 + count;
}

enum MHD_Result CMicroHTTPD_keyValue(
    void *cls, enum MHD_ValueKind kind, const char *key, size_t keySize, const char *value, size_t valueSize
) {
    struct CMicroHTTPD_KeyWriter *writer = (struct CMicroHTTPD_KeyWriter *)cls;
    if (kind == MHD_GET_ARGUMENT_KIND) {
        CMicroHTTPD_appendKeyField(writer, 'K', key, key == NULL ? 0 : keySize);
        CMicroHTTPD_appendKeyField(writer, value == NULL ? 'N' : 'V', value, value == NULL ? 0 : valueSize);
        return MHD_YES;
    }
    if (key == NULL) {
        return MHD_YES;
    }
    if (value == NULL) {
        value = "";
        valueSize = 0;
    }
    for (unsigned int i = 0; i < writer->nameCount; i++) {
        if (keySize == writer->nameLengths[i] && strncasecmp(key, writer->names[i], keySize) == 0) {
            CMicroHTTPD_appendKeyField(writer, (uint8_t)(0x80 + i), value, valueSize);
            return MHD_YES;
        }
    }
    if (writer->captured == NULL && keySize == writer->captureLength && strncasecmp(key, writer->capture, keySize) == 0) {
        writer->captured = value;
        writer->capturedLength = valueSize;
    }
    return MHD_YES;
}

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
) {
    // Header tags are 0x80 + i in one byte: at most 127 names fit.
    struct CMicroHTTPD_KeyWriter writer = {
        buffer, capacity, 0, 0, names, nameLengths, nameCount > 127 ? 127 : nameCount, capture, strlen(capture), NULL, 0
    };
    CMicroHTTPD_appendKeyField(&writer, 'M', method, strlen(method));
    CMicroHTTPD_appendKeyField(&writer, 'U', url, strlen(url));
    // One walk over MHD's list of values for both kinds, in the order MHD stored them (the same
    // for the same request). It goes on past an overflow, for the captured header.
    MHD_get_connection_values_n(
        connection, (enum MHD_ValueKind)(MHD_GET_ARGUMENT_KIND | MHD_HEADER_KIND), CMicroHTTPD_keyValue, &writer
    );
    struct CMicroHTTPD_RequestKey key = { writer.overflow ? 0 : writer.length, writer.captured, writer.capturedLength };
    return key;
}

uint64_t CMicroHTTPD_hashKey(const uint8_t *bytes, size_t count, uint64_t seed) {
    // Unsigned arithmetic throughout: the multiplications wrap by definition, where signed
    // overflow would be undefined.
    uint64_t hash = seed ^ ((uint64_t)count * 0x9E3779B97F4A7C15ULL);
    while (count >= 8) {
        // memcpy, not `*(const uint64_t *)bytes`: the key has no alignment, and reading it through
        // another type breaks the aliasing rules. Compilers turn this into one load.
        uint64_t word;
        memcpy(&word, bytes, 8);
        hash = (hash ^ word) * 0xBF58476D1CE4E5B9ULL;
        hash ^= hash >> 31;
        bytes += 8;
        count -= 8;
    }
    uint64_t tail = 0;
    if (count > 0) {
        memcpy(&tail, bytes, count);
    }
    hash = (hash ^ tail) * 0x94D049BB133111EBULL;
    hash ^= hash >> 29;
    return hash;
}

// MARK: - Slow and idle connections

int64_t CMicroHTTPD_monotonicNanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

struct CMicroHTTPD_Guard *CMicroHTTPD_guardCreate(unsigned int maxArguments, size_t memoryLimit) {
    struct CMicroHTTPD_Guard *guard = calloc(1, sizeof *guard);
    if (guard == NULL) {
        return NULL;
    }
    guard->maxArguments = maxArguments;
    guard->memoryLimit = memoryLimit;
    pthread_mutex_init(&guard->mutex, NULL);
    return guard;
}

void CMicroHTTPD_guardDestroy(struct CMicroHTTPD_Guard *guard) {
    if (guard == NULL) {
        return;
    }
    // Records still listed (none once MHD stopped cleanly) are freed with the guard.
    struct GuardedConnection *record = guard->head;
    while (record != NULL) {
        struct GuardedConnection *next = record->next;
        free(record);
        record = next;
    }
    pthread_mutex_destroy(&guard->mutex);
    free(guard);
}

static void notifyConnection(
    void *cls, struct MHD_Connection *connection, void **socketContext, enum MHD_ConnectionNotificationCode code
) {
    struct CMicroHTTPD_Guard *guard = (struct CMicroHTTPD_Guard *)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct GuardedConnection *record = calloc(1, sizeof *record);
        if (record == NULL || info == NULL) {
            // Unwatched: the connection still has MHD's idle timeout.
            free(record);
            *socketContext = NULL;
            return;
        }
        record->fd = info->connect_fd;
        atomic_store_explicit(&record->waitingSince, CMicroHTTPD_monotonicNanoseconds(), memory_order_relaxed);
        pthread_mutex_lock(&guard->mutex);
        record->next = guard->head;
        if (guard->head != NULL) {
            guard->head->previous = record;
        }
        guard->head = record;
        guard->count++;
        pthread_mutex_unlock(&guard->mutex);
        *socketContext = record;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct GuardedConnection *record = (struct GuardedConnection *)*socketContext;
        if (record == NULL) {
            return;
        }
        pthread_mutex_lock(&guard->mutex);
        if (record->previous != NULL) {
            record->previous->next = record->next;
        } else {
            guard->head = record->next;
        }
        if (record->next != NULL) {
            record->next->previous = record->previous;
        }
        guard->count--;
        pthread_mutex_unlock(&guard->mutex);
        *socketContext = NULL;
        free(record);
    }
}

static struct GuardedConnection *guardedConnection(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : (struct GuardedConnection *)info->socket_context;
}

void CMicroHTTPD_guardHeadReceived(struct MHD_Connection *connection) {
    struct GuardedConnection *record = guardedConnection(connection);
    if (record != NULL) {
        atomic_store_explicit(&record->waitingSince, 0, memory_order_relaxed);
    }
}

void CMicroHTTPD_guardRequestDone(struct MHD_Connection *connection) {
    struct GuardedConnection *record = guardedConnection(connection);
    if (record != NULL) {
        atomic_store_explicit(&record->waitingSince, CMicroHTTPD_monotonicNanoseconds(), memory_order_relaxed);
    }
}

unsigned int CMicroHTTPD_guardBusy(struct CMicroHTTPD_Guard *guard) {
    unsigned int busy = 0;
    pthread_mutex_lock(&guard->mutex);
    for (struct GuardedConnection *record = guard->head; record != NULL; record = record->next) {
        busy += atomic_load_explicit(&record->waitingSince, memory_order_relaxed) == 0;
    }
    pthread_mutex_unlock(&guard->mutex);
    return busy;
}

/// Claims `record` for closing (so that a later sweep does not count it again) and closes it,
/// unless its MHD thread has moved it on meanwhile (a head arrived, or an answer was finished).
static int closeWaiting(struct GuardedConnection *record, int64_t since) {
    int64_t expected = since;
    if (!atomic_compare_exchange_strong_explicit(
            &record->waitingSince, &expected, -1, memory_order_relaxed, memory_order_relaxed)) {
        return 0;
    }
    shutdown(record->fd, SHUT_RDWR);
    return 1;
}

struct Candidate {
    struct GuardedConnection *record;
    int64_t since;
};

static int olderFirst(const void *left, const void *right) {
    int64_t a = ((const struct Candidate *)left)->since;
    int64_t b = ((const struct Candidate *)right)->since;
    return (a > b) - (a < b);
}

struct CMicroHTTPD_SweepResult CMicroHTTPD_guardSweep(
    struct CMicroHTTPD_Guard *guard,
    int64_t now,
    int64_t headerTimeoutNanoseconds,
    int64_t shedAfterNanoseconds,
    unsigned int shedAbove,
    unsigned int shedTo
) {
    struct CMicroHTTPD_SweepResult result = { 0, 0, 0, 0 };
    pthread_mutex_lock(&guard->mutex);
    result.open = guard->count;
    struct Candidate *candidates = NULL;
    size_t candidateCount = 0;
    if (guard->count > shedAbove) {
        candidates = malloc(sizeof *candidates * guard->count);
    }
    unsigned int closing = 0;
    for (struct GuardedConnection *record = guard->head; record != NULL; record = record->next) {
        int64_t since = atomic_load_explicit(&record->waitingSince, memory_order_relaxed);
        if (since < 0) {
            closing++;  // closed by an earlier sweep; MHD has not cleaned it up yet
            continue;
        }
        if (since == 0) {
            continue;
        }
        result.waiting++;
        if (now - since > headerTimeoutNanoseconds) {
            if (closeWaiting(record, since)) {
                result.timedOut++;
                closing++;
            }
        } else if (candidates != NULL && now - since >= shedAfterNanoseconds) {
            candidates[candidateCount].record = record;
            candidates[candidateCount].since = since;
            candidateCount++;
        }
    }
    if (candidates != NULL) {
        qsort(candidates, candidateCount, sizeof *candidates, olderFirst);
        unsigned int remaining = guard->count - closing;
        for (size_t i = 0; i < candidateCount && remaining > shedTo; i++) {
            if (closeWaiting(candidates[i].record, candidates[i].since)) {
                result.shed++;
                remaining--;
            }
        }
        free(candidates);
    }
    pthread_mutex_unlock(&guard->mutex);
    return result;
}

// MARK: - The machine

int CMicroHTTPD_usableCores(void) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        int count = CPU_COUNT(&mask);
        if (count > 0) {
            return count;
        }
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int CMicroHTTPD_lowerThreadPriority(int niceness) {
    // On Linux PRIO_PROCESS with a thread id sets that thread's nice value alone (setpriority(2),
    // NOTES); POSIX would apply it to the whole process.
    return setpriority(PRIO_PROCESS, (id_t)gettid(), niceness);
}

#endif  // __linux__
