// The memo key: the tagged, length-prefixed bytes of everything about a request that may change
// its answer, and their hash (declared in include/CMicroHTTPD.h; see ResponseMemo.swift).
#if defined(__linux__)

#include "CMicroHTTPD.h"

#include <string.h>
#include <strings.h>

// The key's length prefix is two bytes, and the hash reads 8-byte words.
_Static_assert(sizeof(uint64_t) == 8, "the key hash reads 8-byte words");
_Static_assert(sizeof(size_t) >= 4, "key fields up to 0xFFFF bytes must be countable");

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

#endif  // __linux__
