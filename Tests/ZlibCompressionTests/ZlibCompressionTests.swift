import CZlib
import Testing
import ZlibCompression

/// What the compression module writes, read back by zlib's own inflate: gzip members and raw
/// deflate streams give back the input, and the CRC is ISO 3309's.
@Suite("ZlibCompression")
struct ZlibCompressionTests {
    /// Text that compresses, binary that does not, and the edges.
    private static let inputs: [[UInt8]] = [
        [],
        [0],
        Array("{}".utf8),
        Array(String(repeating: "<string>Réessayer</string>\n", count: 2_000).utf8),
        (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) },
    ]

    @Test("gzip: one member that inflates to the input, with the gzip magic and the input's CRC and length")
    func gzip() throws {
        for input in Self.inputs {
            let member = try #require(Gzip.compress(input))
            #expect(member.starts(with: [0x1F, 0x8B, 0x08]), "gzip magic and deflate")
            #expect(inflated(member, windowBits: 15 + 16) == input, "\(input.count) bytes")
            // The trailer: CRC-32 then the length modulo 2^32, little-endian.
            let trailer = member.suffix(8).map(UInt32.init)
            #expect(trailer[0] | trailer[1] << 8 | trailer[2] << 16 | trailer[3] << 24 == CRC32.checksum(input))
            #expect(trailer[4] | trailer[5] << 8 | trailer[6] << 16 | trailer[7] << 24 == UInt32(input.count))
        }
    }

    @Test("the same input compresses to the same bytes, on every call of a thread's reused stream")
    func deterministic() throws {
        let text = Self.inputs[3]
        let first = try #require(Gzip.compress(text))
        _ = Gzip.compress(Self.inputs[4])
        #expect(Gzip.compress(text) == first)
        #expect(try #require(Gzip.compress(text)).count < text.count / 10, "repetitive text compresses")
    }

    @Test("raw deflate: no header or trailer, inflates to the input; an empty input is an empty final block")
    func deflate() throws {
        for input in Self.inputs {
            let stream = try #require(Deflate.compress(input))
            #expect(inflated(stream, windowBits: -15) == input, "\(input.count) bytes")
        }
        #expect(Deflate.compress([]) == [0x03, 0x00])
    }

    @Test("CRC-32 is zlib's (the check value of ISO 3309)")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    /// Inflates `compressed` with zlib (`windowBits` 15 + 16: a gzip member; -15: raw deflate);
    /// `nil` unless it is one complete stream with nothing after it.
    private func inflated(_ compressed: [UInt8], windowBits: Int32) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var input = compressed
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var status = Z_OK
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { destination in
                    stream.next_out = destination.baseAddress
                    stream.avail_out = uInt(destination.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: destination[0..<(destination.count - Int(stream.avail_out))])
                }
            } while status == Z_OK
        }
        return status == Z_STREAM_END && stream.avail_in == 0 ? output : nil
    }
}
