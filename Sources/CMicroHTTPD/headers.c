// Request headers scanned in one pass in C: one header's first value and count, and what
// framing and routing need (declared in include/CMicroHTTPD.h).
#if defined(__linux__)

#include "CMicroHTTPD.h"

#include <string.h>
#include <strings.h>

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

#endif  // __linux__
