import ZlibCompression

/// A ZIP archive (PKWARE APPNOTE 6.3) of files made in memory: what an export of several files
/// answers (an Android `res/` tree, one XLIFF file per locale).
///
/// Each entry is deflated when that makes it smaller, else stored; names are UTF-8 (flag bit 11)
/// with `/` separators, and every entry has the same modification time, so the same files give
/// the same bytes. No ZIP64: an export is tens of MB, far below the format's 4 GiB.
enum ZIPArchive {
    /// The archive of `files`, in their order.
    /// - Parameter modified: the entries' time, `YYYY-MM-DDTHH:MM:SSZ` (the export's time); an
    ///   unreadable one gives 1980-01-01 00:00, the earliest time ZIP can say.
    static func archive(_ files: [(path: String, bytes: [UInt8])], modified: String) -> [UInt8] {
        let (time, date) = dosDateTime(modified)
        var output: [UInt8] = []
        var directory: [UInt8] = []
        for file in files {
            let name = Array(file.path.utf8)
            let crc = CRC32.checksum(file.bytes)
            let deflated = Deflate.compress(file.bytes).flatMap { $0.count < file.bytes.count ? $0 : nil }
            let method: UInt16 = deflated == nil ? 0 : 8
            let data = deflated ?? file.bytes
            let offset = output.count
            // The fields a local header and its central directory record share, from "version
            // needed" to the extra field's length.
            var fields: [UInt8] = []
            fields.append(littleEndian: UInt16(20))  // version needed: 2.0 (deflate)
            fields.append(littleEndian: UInt16(0x0800))  // bit 11: the name is UTF-8
            fields.append(littleEndian: method)
            fields.append(littleEndian: time)
            fields.append(littleEndian: date)
            fields.append(littleEndian: crc)
            fields.append(littleEndian: UInt32(data.count))
            fields.append(littleEndian: UInt32(file.bytes.count))
            fields.append(littleEndian: UInt16(name.count))
            fields.append(littleEndian: UInt16(0))  // extra field length
            // Local file header.
            output.append(littleEndian: UInt32(0x0403_4B50))
            output += fields
            output += name
            output += data
            // Its central directory record.
            directory.append(littleEndian: UInt32(0x0201_4B50))
            directory.append(littleEndian: UInt16(0x0314))  // made by: Unix, 2.0
            directory += fields
            directory.append(littleEndian: UInt16(0))  // comment length
            directory.append(littleEndian: UInt16(0))  // disk number
            directory.append(littleEndian: UInt16(0))  // internal attributes
            directory.append(littleEndian: UInt32(0o100644) << 16)  // external: a regular file, rw-r--r--
            directory.append(littleEndian: UInt32(offset))
            directory += name
        }
        let directoryOffset = output.count
        output += directory
        // End of central directory record.
        output.append(littleEndian: UInt32(0x0605_4B50))
        output.append(littleEndian: UInt16(0))
        output.append(littleEndian: UInt16(0))
        output.append(littleEndian: UInt16(files.count))
        output.append(littleEndian: UInt16(files.count))
        output.append(littleEndian: UInt32(directory.count))
        output.append(littleEndian: UInt32(directoryOffset))
        output.append(littleEndian: UInt16(0))  // comment length
        return output
    }

    /// MS-DOS time and date fields of a `YYYY-MM-DDTHH:MM:SSZ` time (two-second resolution).
    static func dosDateTime(_ timestamp: String) -> (time: UInt16, date: UInt16) {
        let digits = timestamp.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard digits.count >= 6, (1980...2107).contains(digits[0]) else { return (0, 0x21) }
        let time = UInt16(digits[3] << 11 | digits[4] << 5 | digits[5] / 2)
        let date = UInt16((digits[0] - 1980) << 9 | digits[1] << 5 | digits[2])
        return (time, date)
    }
}

extension [UInt8] {
    fileprivate mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
