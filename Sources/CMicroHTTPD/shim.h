#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

// microhttpd.h expects these to be included first.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <stdarg.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// Swift cannot call C variadic functions; these non-variadic wrappers stand in for
// MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info.

/// Keeps the URL and the query arguments exactly as they arrived, so that Swift can
/// percent-decode them strictly and answer 400 to a malformed escape.
static inline size_t CMicroHTTPD_keepEscaped(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// Starts a daemon listening on `host` (an IPv4 or IPv6 literal) and `port` (0 picks a free one).
/// `options` is an MHD_OPTION_END-terminated array for the tunables.
/// Returns NULL when `host` is not an IP literal or MHD could not start (the reason is in errno
/// and MHD's error log).
static inline struct MHD_Daemon *CMicroHTTPD_start(
    unsigned int flags,
    const char *host,
    uint16_t port,
    MHD_AccessHandlerCallback handler,
    void *handlerContext,
    MHD_RequestCompletedCallback completed,
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
        return NULL;
    }
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handlerContext,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handlerContext,
        MHD_OPTION_UNESCAPE_CALLBACK, CMicroHTTPD_keepEscaped, NULL,
        MHD_OPTION_ARRAY, options,
        MHD_OPTION_END);
}

/// The port the daemon is bound to (useful after asking for port 0).
static inline uint16_t CMicroHTTPD_boundPort(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The number of open connections, used to drain before stopping.
static inline unsigned int CMicroHTTPD_currentConnections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// Writes the client's IP address as text into `buffer`; returns 0 on success, -1 when unknown.
static inline int CMicroHTTPD_clientAddress(struct MHD_Connection *connection, char *buffer, socklen_t capacity) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) {
        return -1;
    }
    const struct sockaddr *address = info->client_addr;
    const void *raw;
    if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, capacity) == NULL ? -1 : 0;
}

struct CMicroHTTPD_HeaderScan {
    const char *name;
    const char *first;
    unsigned int count;
};

static enum MHD_Result CMicroHTTPD_scanHeader(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct CMicroHTTPD_HeaderScan *scan = (struct CMicroHTTPD_HeaderScan *)cls;
    if (key != NULL && strcasecmp(key, scan->name) == 0) {
        if (scan->count++ == 0) {
            scan->first = value == NULL ? "" : value;
        }
    }
    return MHD_YES;
}

/// The first value of request header `name` (compared case-insensitively), or NULL when the
/// request has none; `*count` is set to how many times the header occurs. One pass in C: most
/// lookups find nothing, or one value, and need no Swift string work.
static inline const char *CMicroHTTPD_headerValue(struct MHD_Connection *connection, const char *name, unsigned int *count) {
    struct CMicroHTTPD_HeaderScan scan = { name, NULL, 0 };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, CMicroHTTPD_scanHeader, &scan);
    *count = scan.count;
    return scan.first;
}

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

static enum MHD_Result CMicroHTTPD_scanMessageHeader(
    void *cls, enum MHD_ValueKind kind, const char *key, size_t keySize, const char *value, size_t valueSize
) {
    (void)kind;
    (void)valueSize;
    struct CMicroHTTPD_MessageHeaders *found = (struct CMicroHTTPD_MessageHeaders *)cls;
    if (key == NULL) {
        return MHD_YES;
    }
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

/// What framing and routing need from the headers of the request on `connection`
/// (`Content-Length`, `Transfer-Encoding`, `Host`), in one pass over them.
static inline struct CMicroHTTPD_MessageHeaders CMicroHTTPD_messageHeaders(struct MHD_Connection *connection) {
    struct CMicroHTTPD_MessageHeaders found = { NULL, 0, 0, 0 };
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, CMicroHTTPD_scanMessageHeader, &found);
    return found;
}

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

static inline void CMicroHTTPD_appendKeyField(struct CMicroHTTPD_KeyWriter *writer, uint8_t tag, const char *text, size_t count) {
    if (writer->overflow || count > 0xFFFF || writer->capacity - writer->length < 3 + count) {
        writer->overflow = 1;
        return;
    }
    uint8_t *out = writer->buffer + writer->length;
    out[0] = tag;
    out[1] = (uint8_t)(count >> 8);
    out[2] = (uint8_t)count;
    if (count > 0) {
        memcpy(out + 3, text, count);
    }
    writer->length += 3 + count;
}

/// One query argument or header of the request, in arrival order: an argument goes into the key;
/// a header goes in when it is one of `names`, and is noted when it is `capture`.
static enum MHD_Result CMicroHTTPD_keyValue(
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
static inline struct CMicroHTTPD_RequestKey CMicroHTTPD_requestKey(
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

/// A 64-bit hash of `count` bytes, seeded per process. Only picks a key's slot: keys are
/// compared whole, so a collision costs a probe, never a wrong answer.
static inline uint64_t CMicroHTTPD_hashKey(const uint8_t *bytes, size_t count, uint64_t seed) {
    uint64_t hash = seed ^ ((uint64_t)count * 0x9E3779B97F4A7C15ULL);
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        hash = (hash ^ word) * 0xBF58476D1CE4E5B9ULL;
        hash ^= hash >> 31;
        bytes += 8;
        count -= 8;
    }
    uint64_t tail = 0;
    memcpy(&tail, bytes, count);
    hash = (hash ^ tail) * 0x94D049BB133111EBULL;
    hash ^= hash >> 29;
    return hash;
}

/// The number of CPUs this process may run on: its affinity mask (taskset, a container's
/// cpuset), or the online CPUs when the mask cannot be read. A raw system call, so that the
/// header needs no _GNU_SOURCE.
static inline int CMicroHTTPD_usableCores(void) {
    unsigned long mask[64];
    memset(mask, 0, sizeof mask);
    long written = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (written > 0) {
        int count = 0;
        for (size_t i = 0; i < (size_t)written / sizeof mask[0]; i++) {
            count += __builtin_popcountl(mask[i]);
        }
        if (count > 0) {
            return count;
        }
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

/// Raises the calling thread's nice value (Linux schedules threads individually); 0 on success.
static inline int CMicroHTTPD_lowerThreadPriority(int niceness) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness);
}

#endif
