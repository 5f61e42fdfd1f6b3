// The query-argument limit: the URI callback that counts a query's arguments before
// libmicrohttpd parses them, and the markers it leaves for the access handler (declared in
// include/CMicroHTTPD.h and internal.h).
#if defined(__linux__)

#include "CMicroHTTPD.h"
#include "internal.h"

#include <string.h>

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
void *CMicroHTTPD_countArguments(void *cls, const char *uri, struct MHD_Connection *connection) {
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
        // callback's signature); see `verifiedVersions` in daemon.c.
        ((char *)query)[1] = '\0';
    }
    return marker;
}

#endif  // __linux__
