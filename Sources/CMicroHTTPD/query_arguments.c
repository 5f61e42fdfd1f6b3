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
#include <string.h>
#include <sys/socket.h>

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

/// Bytes a parsed argument may take from the connection's memory pool: a record of two or three
/// list links, two string pointers, two lengths and the kind (48 bytes in 0.9.75, 56 in 1.0.1,
/// on 64-bit Linux), rounded up to the pool's 16-byte alignment with room to spare. The strings
/// themselves stay in the read buffer.
enum { argumentRecordBytes = 64 };
/// What the pool must keep beside the request line and the arguments' records: the rest of the
/// head (its header lines and their records) and the answer's status line and headers. An eighth
/// of the pool, between 512 bytes and 2 KiB (2 KiB at the default 16 KiB).
static size_t reserveBytes(size_t memoryLimit) {
    size_t reserve = memoryLimit / 8;
    return reserve < 512 ? 512 : reserve > 2048 ? 2048 : reserve;
}
/// How much the read buffer may have grown past the request line when it ends (one growth step
/// is an eighth of the free pool, at most 1 KiB at these sizes).
enum { readBufferSlackBytes = 1024 };

int CMicroHTTPD_argumentsFit(size_t targetLength, size_t count, size_t memoryLimit) {
    // The read buffer starts at half the pool and grows to hold a longer request line.
    size_t readBuffer = memoryLimit / 2;
    if (targetLength + readBufferSlackBytes > readBuffer) {
        readBuffer = targetLength + readBufferSlackBytes;
    }
    size_t reserve = reserveBytes(memoryLimit);
    if (readBuffer + reserve > memoryLimit) {
        return 0;
    }
    // Compared as a division: `count * argumentRecordBytes` could wrap around for a huge count.
    return count <= (memoryLimit - readBuffer - reserve) / argumentRecordBytes;
}

/// The URI callback: counts the query's arguments before MHD parses them.
///
/// Each parsed argument takes a record in the connection's memory pool
/// (MHD_OPTION_CONNECTION_MEMORY_LIMIT), beside the read buffer that holds the request line. A
/// query whose records may not fit there with room for an answer is not served: MHD 0.9.75 to
/// 0.9.77 lose their own 431 when the parse runs out of memory (the request-line state overwrites
/// the error's) and wait, answerless, for bytes the client will not send; 1.0.x answer 431, but
/// close without a word when the records fit and the answer does not. The callback cannot stop the
/// parse, so it closes the connection's socket at once (shutdown(2), as the connection guard does:
/// MHD sees the end and cleans up on its own thread) and marks the request, whose access handler,
/// should MHD still call it, answers nothing. A query that fits but has more than `maxArguments`
/// arguments is marked for the access handler to refuse with a 400.
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
        if (info != NULL) {
            shutdown(info->connect_fd, SHUT_RDWR);
        }
        atomic_fetch_add_explicit(&limits->overflowClosed, 1, memory_order_relaxed);
        return &argumentsOverflow;
    }
    return count > limits->maxArguments ? &tooManyArguments : NULL;
}

#endif  // __linux__
