// The query-argument limit: the URI callback that counts a query's arguments before
// libmicrohttpd parses them, and the markers it leaves for the access handler (declared in
// include/CMicroHTTPD.h and internal.h).
//
// API (the table in include/CMicroHTTPD.h): MHD_OPTION_URI_LOG_CALLBACK, documented as called
// with the request's whole, NUL-terminated URI "before parsing" it, its return value becoming the
// request's `req_cls`; MHD_get_connection_info(MHD_CONNECTION_INFO_CONNECTION_FD), documented as
// available in that callback. The URI is only read: MHD parses the arguments after the callback
// returns, whatever it found.
#if defined(__linux__)

#include "CMicroHTTPD.h"
#include "internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

/// Distinct addresses for the markers: never a valid object, never one of the small tagged
/// values the Swift side keeps in `con_cls` (1, and pointers with bit 1 set).
static char tooManyArguments;
static char argumentsOverflow;

void *CMicroHTTPD_tooManyArgumentsMarker(void) {
    return &tooManyArguments;
}

void *CMicroHTTPD_argumentsOverflowMarker(void) {
    return &argumentsOverflow;
}

/// Bytes a parsed argument takes from the connection's memory pool: a record of list links, two
/// string pointers, two lengths and the kind (56 bytes on 64-bit Linux in 0.9.75 and 1.0.1),
/// aligned. The strings themselves stay in the read buffer. Measured, not taken from MHD's
/// headers (the record is not part of its API): on both versions, at a 16 KiB pool, 238 short
/// arguments parse and leave room for an answer, and from about 247 the parse runs out of memory.
enum { argumentRecordBytes = 64 };

/// What the pool must keep beside the request line and the arguments' records: the rest of the
/// head (its header lines and their records) and the answer's status line and headers. An eighth
/// of the pool, between 512 bytes and 2 KiB (2 KiB at the default 16 KiB).
static size_t reserveBytes(size_t memoryLimit) {
    size_t reserve = memoryLimit / 8;
    return reserve < 512 ? 512 : reserve > 2048 ? 2048 : reserve;
}

int CMicroHTTPD_argumentsFit(size_t targetLength, size_t count, size_t memoryLimit) {
    // The read buffer holds the request line (and whatever followed it in the same reads); the
    // arguments' records are taken from the rest of the pool.
    size_t reserve = reserveBytes(memoryLimit);
    if (targetLength + reserve > memoryLimit) {
        return 0;
    }
    // Compared as a division: `count * argumentRecordBytes` could wrap around for a huge count.
    return count <= (memoryLimit - targetLength - reserve) / argumentRecordBytes;
}

int CMicroHTTPD_guardSetOverflowAnswer(
    struct CMicroHTTPD_Guard *guard,
    const char *head,
    size_t headLength,
    const char *body,
    size_t bodyLength,
    size_t idOffset
) {
    if (headLength + bodyLength > sizeof(((struct OverflowAnswer *)0)->bytes) - overflowAnswerHeadroom
        || (idOffset != SIZE_MAX && (idOffset > bodyLength || bodyLength - idOffset < 16))) {
        return -1;
    }
    memcpy(guard->overflowAnswer.bytes, head, headLength);
    memcpy(guard->overflowAnswer.bytes + headLength, body, bodyLength);
    guard->overflowAnswer.headLength = headLength;
    guard->overflowAnswer.bodyLength = bodyLength;
    guard->overflowAnswer.idOffset = idOffset;
    return 0;
}

/// 16 hex digits: the next value of a per-process counter (started at a random point) mixed by
/// SplitMix64, as RequestID.generate does on the Swift side.
static void nextRequestID(char out[17]) {
    static _Atomic uint64_t sequence;
    static _Atomic int seeded;
    if (!atomic_load_explicit(&seeded, memory_order_acquire)) {
        uint64_t seed = 0;
        if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
            seed = (uint64_t)CMicroHTTPD_monotonicNanoseconds();
        }
        uint64_t expected = 0;
        atomic_compare_exchange_strong(&sequence, &expected, seed);
        atomic_store_explicit(&seeded, 1, memory_order_release);
    }
    uint64_t value = atomic_fetch_add_explicit(&sequence, 0x9E3779B97F4A7C15ULL, memory_order_relaxed) + 0x9E3779B97F4A7C15ULL;
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
    value ^= value >> 31;
    static const char digits[] = "0123456789abcdef";
    for (int index = 0; index < 16; index++) {
        out[index] = digits[(value >> (60 - 4 * index)) & 0xF];
    }
    out[16] = '\0';
}

/// Writes the guard's answer for a query whose arguments do not fit on `fd`, with this request's
/// Date, X-Request-ID (also put into the body, where the answer's `requestId` is), length and
/// `Connection: close`, then ends the sending side (FIN after the answer; MHD goes on reading
/// what the client sent, so the socket is not closed with unread bytes, which would reset the
/// connection and could lose the answer on the client's side). Returns 1 when it was sent whole.
static int sendOverflowAnswer(const struct CMicroHTTPD_Guard *guard, int fd) {
    const struct OverflowAnswer *answer = &guard->overflowAnswer;
    if (answer->headLength == 0) {
        return 0;
    }
    char id[17];
    nextRequestID(id);
    char date[40];
    time_t now = time(NULL);
    struct tm parts;
    gmtime_r(&now, &parts);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &parts);
    char out[sizeof answer->bytes + overflowAnswerHeadroom];
    size_t length = answer->headLength;
    memcpy(out, answer->bytes, length);
    int added = snprintf(
        out + length, sizeof out - length,
        "Date: %s\r\nX-Request-ID: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
        date, id, answer->bodyLength);
    if (added < 0 || (size_t)added >= sizeof out - length - answer->bodyLength) {
        return 0;
    }
    length += (size_t)added;
    memcpy(out + length, answer->bytes + answer->headLength, answer->bodyLength);
    if (answer->idOffset != SIZE_MAX) {
        memcpy(out + length + answer->idOffset, id, 16);
    }
    length += answer->bodyLength;
    ssize_t sent = send(fd, out, length, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(fd, SHUT_WR);
    return sent == (ssize_t)length;
}

/// The URI callback: counts the query's arguments before MHD parses them.
///
/// Each parsed argument takes a record in the connection's memory pool
/// (MHD_OPTION_CONNECTION_MEMORY_LIMIT), beside the read buffer that holds the request line. A
/// query whose records may not fit there with room for an answer is not left to MHD: 0.9.75 to
/// 0.9.77 lose their own 431 when the parse runs out of memory (the request-line state overwrites
/// the error's) and wait, answerless, for bytes the client will not send; 1.0.x answer 431 (HTML,
/// for a status the operations do not list) or, when the records fit and the answer does not,
/// close without a word. The callback cannot stop the parse, so it answers itself, on the socket,
/// before MHD has written anything for this request (MHD reads a request's line only once the
/// previous answer was sent): the same 400 problem the server gives for too many arguments, with
/// `Connection: close` (`sendOverflowAnswer`), and marks the request, whose access handler,
/// should MHD still call it, answers nothing more. The method is not known here (MHD passes the
/// URI alone), so a HEAD request gets the problem's body too, then the end of the connection. A
/// query that fits but has more than `maxArguments` arguments is marked for the access handler
/// to refuse with a 400.
void *CMicroHTTPD_countArguments(void *cls, const char *uri, struct MHD_Connection *connection) {
    struct CMicroHTTPD_Guard *limits = (struct CMicroHTTPD_Guard *)cls;
    const char *query = uri == NULL ? NULL : strchr(uri, '?');
    if (query == NULL) {
        return NULL;
    }
    // Every '&' may start an argument (MHD makes a record even for an empty one), so a query of
    // n bytes has at most n + 1: a short one (most) needs no counting when that many fit.
    size_t queryLength = strlen(query + 1);
    size_t targetLength = (size_t)(query - uri) + 1 + queryLength;
    if (queryLength < limits->maxArguments && CMicroHTTPD_argumentsFit(targetLength, queryLength + 1, limits->memoryLimit)) {
        return NULL;
    }
    size_t count = 1;
    for (const char *next = query + 1; (next = memchr(next, '&', (size_t)(query + 1 + queryLength - next))) != NULL; next++) {
        count++;
    }
    if (!CMicroHTTPD_argumentsFit(targetLength, count, limits->memoryLimit)) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info != NULL && !sendOverflowAnswer(limits, info->connect_fd)) {
            // No answer could be written: the connection is only closed.
            shutdown(info->connect_fd, SHUT_RDWR);
        }
        atomic_fetch_add_explicit(&limits->overflowClosed, 1, memory_order_relaxed);
        return &argumentsOverflow;
    }
    return count > limits->maxArguments ? &tooManyArguments : NULL;
}

#endif  // __linux__
