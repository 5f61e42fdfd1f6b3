// libFuzzer target: the header scan and the memo key (Sources/CMicroHTTPD/headers.c and
// memo_key.c), called the way MHD_get_connection_values_n calls them, with fuzzer-chosen (kind,
// key, keySize, value, valueSize) sequences, and checked against a plain model.
//
// Invariants:
// - CMicroHTTPD_keyValue / CMicroHTTPD_appendKeyField never write past the buffer (ASan: the
//   buffer is allocated at exactly its capacity) and never read past a key or value (each is its
//   own allocation of exactly size + 1 bytes);
// - the key is exactly the model's fields ('M', 'U', then 'K' and 'V'/'N' per argument, 0x80 + i
//   per value of header names[i], in order), or overflow is flagged when they do not fit or one
//   is over 0xFFFF bytes; decoding the key field by field gives back exactly the model's fields,
//   so two different sequences of fields never share a key;
// - the captured header is the first one named like `capture` (case-insensitively);
// - CMicroHTTPD_scanMessageHeader finds Host, the first Content-Length, a conflicting later one,
//   and Transfer-Encoding exactly as the model does;
// - CMicroHTTPD_hashKey reads only the key's bytes and is a function of them and the seed.
//
// Keys and values contain no NUL: MHD hands over the C strings it parsed from the request.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "CMicroHTTPD.h"

#define CHECK(condition)                                                                                                \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            __builtin_trap();                                                                                          \
        }                                                                                                              \
    } while (0)

static const char *const names[] = {"Accept-Encoding", "Accept-Language", "If-None-Match"};
static const size_t nameLengths[] = {15, 15, 13};
static const char *const capture = "X-Request-ID";
/// Header names the operations can pick, besides fuzzer-made ones: the key's and the scan's.
static const char *const known[] = {
    "Accept-Encoding", "accept-language", "IF-NONE-MATCH", "X-Request-ID", "Host", "content-length",
    "Transfer-Encoding", "Accept",
};

struct Reader {
    const uint8_t *data;
    size_t size;
};

static uint8_t next(struct Reader *reader) {
    if (reader->size == 0) {
        return 0;
    }
    reader->size--;
    return *reader->data++;
}

/// `count` bytes of the input (NUL read as 0x01) in an allocation of exactly count + 1.
static char *take(struct Reader *reader, size_t count) {
    char *text = malloc(count + 1);
    for (size_t i = 0; i < count; i++) {
        uint8_t byte = next(reader);
        text[i] = (char)(byte == 0 ? 1 : byte);
    }
    text[count] = 0;
    return text;
}

struct Field {
    uint8_t tag;
    const char *bytes;
    size_t count;
};

#define MAX_FIELDS 512

struct Model {
    struct Field fields[MAX_FIELDS];
    size_t count;
    const char *captured;
    size_t capturedLength;
    // The scan's view.
    int host;
    const char *contentLength;
    int conflicting;
    int transferEncoding;
};

static void expect(struct Model *model, uint8_t tag, const char *bytes, size_t count) {
    CHECK(model->count < MAX_FIELDS);
    model->fields[model->count++] = (struct Field){tag, bytes, count};
}

static int sameName(const char *key, size_t keySize, const char *name) {
    return keySize == strlen(name) && strncasecmp(key, name, keySize) == 0;
}

/// What the key writer and the scan should make of one value.
static void model(struct Model *m, int argument, const char *key, size_t keySize, const char *value, size_t valueSize) {
    if (argument) {
        expect(m, 'K', key == NULL ? "" : key, key == NULL ? 0 : keySize);
        expect(m, value == NULL ? 'N' : 'V', value == NULL ? "" : value, value == NULL ? 0 : valueSize);
        return;
    }
    if (key == NULL) {
        return;
    }
    const char *text = value == NULL ? "" : value;
    size_t textSize = value == NULL ? 0 : valueSize;
    if (sameName(key, keySize, "Host")) {
        m->host = 1;
    } else if (sameName(key, keySize, "Content-Length")) {
        if (m->contentLength == NULL) {
            m->contentLength = text;
        } else if (strcmp(m->contentLength, text) != 0) {
            m->conflicting = 1;
        }
    } else if (sameName(key, keySize, "Transfer-Encoding")) {
        m->transferEncoding = 1;
    }
    for (unsigned int i = 0; i < 3; i++) {
        if (sameName(key, keySize, names[i])) {
            expect(m, (uint8_t)(0x80 + i), text, textSize);
            return;
        }
    }
    if (m->captured == NULL && sameName(key, keySize, capture)) {
        m->captured = text;
        m->capturedLength = textSize;
    }
}

/// Both absent, or the same text (the header's "" and ours need not be one object).
static int sameText(const char *a, const char *b) {
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct Reader reader = {data, size};
    size_t capacity = ((size_t)next(&reader) | (size_t)next(&reader) << 8) % 4096;
    uint8_t *buffer = malloc(capacity == 0 ? 1 : capacity);
    static struct Model m;
    memset(&m, 0, sizeof m);
    char *allocations[2 * MAX_FIELDS + 2];
    size_t allocated = 0;

    size_t methodLength = next(&reader) % 16;
    char *method = take(&reader, methodLength);
    size_t urlLength = next(&reader);
    char *url = take(&reader, urlLength);
    allocations[allocated++] = method;
    allocations[allocated++] = url;

    struct CMicroHTTPD_KeyWriter writer = {
        buffer, capacity, 0, 0, names, nameLengths, 3, capture, strlen(capture), NULL, 0,
    };
    struct CMicroHTTPD_MessageHeaders found = {NULL, 0, 0, 0};
    CMicroHTTPD_appendKeyField(&writer, 'M', method, methodLength);
    CMicroHTTPD_appendKeyField(&writer, 'U', url, urlLength);
    expect(&m, 'M', method, methodLength);
    expect(&m, 'U', url, urlLength);

    while (reader.size > 0 && m.count + 2 < MAX_FIELDS && allocated + 2 <= sizeof allocations / sizeof allocations[0]) {
        uint8_t op = next(&reader);
        int argument = !(op & 1);
        char *key = NULL;
        size_t keySize = 0;
        if (!(op & 2)) {
            if (op & 4) {
                const char *name = known[next(&reader) % (sizeof known / sizeof known[0])];
                keySize = strlen(name);
                key = malloc(keySize + 1);
                memcpy(key, name, keySize + 1);
            } else {
                keySize = next(&reader) % 32;
                key = take(&reader, keySize);
            }
            allocations[allocated++] = key;
        }
        char *value = NULL;
        size_t valueSize = 0;
        if (!(op & 8)) {
            valueSize = next(&reader);
            if (op & 16) {
                // Over the 2-byte length: must be flagged, never truncated.
                valueSize += 0xFFFF - 64;
                value = malloc(valueSize + 1);
                memset(value, 'a', valueSize);
                value[valueSize] = 0;
            } else {
                value = take(&reader, valueSize);
            }
            allocations[allocated++] = value;
        }
        enum MHD_ValueKind kind = argument ? MHD_GET_ARGUMENT_KIND : MHD_HEADER_KIND;
        CHECK(CMicroHTTPD_keyValue(&writer, kind, key, keySize, value, valueSize) == MHD_YES);
        if (!argument) {
            CHECK(CMicroHTTPD_scanMessageHeader(&found, kind, key, keySize, value, valueSize) == MHD_YES);
        }
        model(&m, argument, key, keySize, value, valueSize);
    }

    // The model's key: every field in order, until the first that does not fit.
    size_t length = 0;
    int overflow = 0;
    for (size_t i = 0; i < m.count && !overflow; i++) {
        if (m.fields[i].count > 0xFFFF || capacity - length < 3 + m.fields[i].count) {
            overflow = 1;
        } else {
            length += 3 + m.fields[i].count;
        }
    }
    CHECK(writer.overflow == overflow);
    CHECK(writer.length <= capacity);
    if (!overflow) {
        CHECK(writer.length == length);
        // Decode the key back into fields: it must give exactly the model's.
        size_t at = 0;
        for (size_t i = 0; i < m.count; i++) {
            CHECK(length - at >= 3);
            CHECK(buffer[at] == m.fields[i].tag);
            size_t count = (size_t)buffer[at + 1] << 8 | buffer[at + 2];
            CHECK(count == m.fields[i].count && length - at - 3 >= count);
            CHECK(count == 0 || memcmp(buffer + at + 3, m.fields[i].bytes, count) == 0);
            at += 3 + count;
        }
        CHECK(at == length);

        // The hash reads only the key (an exact copy) and depends on nothing else.
        uint8_t *copy = malloc(length == 0 ? 1 : length);
        memcpy(copy, buffer, length);
        CHECK(CMicroHTTPD_hashKey(copy, length, 42) == CMicroHTTPD_hashKey(buffer, length, 42));
        free(copy);
    }
    CHECK(sameText(writer.captured, m.captured) && writer.capturedLength == m.capturedLength);
    CHECK(found.host == m.host && found.transferEncoding == m.transferEncoding);
    CHECK(sameText(found.contentLength, m.contentLength) && found.conflictingContentLength == m.conflicting);

    for (size_t i = 0; i < allocated; i++) {
        free(allocations[i]);
    }
    free(buffer);
    return 0;
}
