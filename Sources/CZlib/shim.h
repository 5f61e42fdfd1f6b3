#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

/// Frees a thread's deflate stream when the thread exits (a pthread key destructor): threads of
/// the worker pools come and go, and each kept ~268 KiB of zlib state after it ended.
static inline void CZlib_freeStream(void *stream) {
    deflateEnd((z_stream *)stream);
    free(stream);
}

/// The key of each thread's deflate stream. Statics live inside functions: Swift emits a
/// header's inline functions, with their static locals, but not its global variables.
static inline pthread_key_t *CZlib_streamKeyStorage(void) {
    static pthread_key_t key;
    return &key;
}

static inline void CZlib_makeStreamKey(void) {
    (void)pthread_key_create(CZlib_streamKeyStorage(), CZlib_freeStream);
}

static inline pthread_key_t CZlib_streamKey(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, CZlib_makeStreamKey);
    return *CZlib_streamKeyStorage();
}

/// Compresses `input` into a gzip member (RFC 1952) at zlib's default level (6): nearly the size
/// of level 9 at a fraction of the time, which matters when a published change re-renders.
/// `deflateInit2` is a macro Swift cannot import, hence this wrapper. Each thread keeps one
/// deflate stream and resets it between calls: initializing a stream allocates and clears
/// ~256 KiB, which dominated the cost of compressing many small documents. The stream is freed
/// when its thread exits (`CZlib_freeStream`).
/// Returns the number of bytes written to `output`, or 0 when `capacity` was too small
/// or zlib failed. `CZlib_gzipBound(length)` is always a large enough capacity.
static inline size_t CZlib_gzip(const uint8_t *input, size_t length, uint8_t *output, size_t capacity) {
    pthread_key_t key = CZlib_streamKey();
    z_stream *stream = pthread_getspecific(key);
    if (stream == NULL) {
        stream = calloc(1, sizeof *stream);
        if (stream == NULL) {
            return 0;
        }
        if (deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            free(stream);
            return 0;
        }
        if (pthread_setspecific(key, stream) != 0) {
            CZlib_freeStream(stream);
            return 0;
        }
    } else if (deflateReset(stream) != Z_OK) {
        return 0;
    }
    stream->next_in = (Bytef *)input;
    stream->avail_in = (uInt)length;
    stream->next_out = output;
    stream->avail_out = (uInt)capacity;
    int status = deflate(stream, Z_FINISH);
    return status == Z_STREAM_END ? capacity - stream->avail_out : 0;
}

/// Compresses `input` as a raw deflate stream (RFC 1951, no header or trailer: what a ZIP entry
/// holds) at zlib's default level, with a stream of its own (archives are made rarely).
/// Returns the number of bytes written to `output`, or 0 when `capacity` was too small or zlib
/// failed; `CZlib_gzipBound(length)` is always large enough.
static inline size_t CZlib_rawDeflate(const uint8_t *input, size_t length, uint8_t *output, size_t capacity) {
    z_stream stream = {0};
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return 0;
    }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t written = capacity - stream.avail_out;
    deflateEnd(&stream);
    return status == Z_STREAM_END ? written : 0;
}

/// The CRC-32 of `input` (ISO 3309, as ZIP and gzip use it).
static inline uint32_t CZlib_crc32(const uint8_t *input, size_t length) {
    return (uint32_t)crc32(0L, input, (uInt)length);
}

/// The capacity `CZlib_gzip` needs for `length` input bytes.
static inline size_t CZlib_gzipBound(size_t length) {
    return (size_t)compressBound((uLong)length) + 32;
}

#endif
