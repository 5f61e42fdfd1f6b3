#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/// Compresses `input` into a gzip member (RFC 1952) at zlib's default level (6): nearly the size
/// of level 9 at a fraction of the time, which matters when a published change re-renders.
/// `deflateInit2` is a macro Swift cannot import, hence this wrapper. Each thread keeps one
/// deflate stream and resets it between calls: initializing a stream allocates and clears
/// ~256 KiB, which dominated the cost of compressing many small documents.
/// Returns the number of bytes written to `output`, or 0 when `capacity` was too small
/// or zlib failed. `CZlib_gzipBound(length)` is always a large enough capacity.
static inline size_t CZlib_gzip(const uint8_t *input, size_t length, uint8_t *output, size_t capacity) {
    static _Thread_local z_stream stream;
    static _Thread_local int ready = 0;
    if (!ready) {
        if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            return 0;
        }
        ready = 1;
    } else if (deflateReset(&stream) != Z_OK) {
        return 0;
    }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    return status == Z_STREAM_END ? capacity - stream.avail_out : 0;
}

/// The capacity `CZlib_gzip` needs for `length` input bytes.
static inline size_t CZlib_gzipBound(size_t length) {
    return (size_t)compressBound((uLong)length) + 32;
}

#endif
