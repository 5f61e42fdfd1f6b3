/// Immutable bytes rendered once and sent by many responses without copying.
///
/// libmicrohttpd reads the storage directly; each queued response retains the object until
/// the library calls back to say it has finished with it, so a replaced catalogue snapshot can
/// be dropped while responses from it are still being written.
package final class SharedBytes: @unchecked Sendable {
    // Safe to share: written once in `init`, never mutated after.
    package let pointer: UnsafeMutableRawPointer
    package let count: Int

    package init(_ bytes: [UInt8]) {
        count = bytes.count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { pointer.copyMemory(from: base, byteCount: bytes.count) }
        }
    }

    deinit {
        pointer.deallocate()
    }

    /// A copy of the bytes, for tests and logs.
    package var array: [UInt8] {
        Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
