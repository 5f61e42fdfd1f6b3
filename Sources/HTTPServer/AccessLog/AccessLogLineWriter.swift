import JSONCoding

/// Appends bytes into memory it does not own (a slice of an access-log buffer), checking the
/// capacity on each append: past it, nothing more is written and `overflow` is set, so a line is
/// either written whole or not at all. Escaped fields are written by `TextEscaper` into the
/// memory that is left, with the same rule (JSONCoding's `LentMemory`).
struct AccessLogLineWriter {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0
    private(set) var overflow = false

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        guard count < capacity else {
            overflow = true
            return
        }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        guard capacity - count >= bytes.count else {
            overflow = true
            return
        }
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    /// `bytes` escaped by `escaper`, cut at `limit` bytes (see `TextEscaper`), straight into the
    /// memory that is left.
    mutating func append(escaping bytes: UnsafeBufferPointer<UInt8>, with escaper: TextEscaper, limit: Int) {
        guard !overflow else { return }
        if let written = escaper.escape(bytes, limit: limit, into: base + count, capacity: capacity - count) {
            count += written
        } else {
            overflow = true
        }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` in decimal (negative values as 0: the fields are counts and sizes), written from its
    /// last digit back, straight into the line.
    mutating func append(decimal value: Int) {
        guard value > 0 else { return append(UInt8(ascii: "0")) }
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        guard capacity - count >= digits else {
            overflow = true
            return
        }
        var remaining = value
        var index = count + digits
        while remaining > 0 {
            index -= 1
            base[index] = UInt8(truncatingIfNeeded: 0x30 + remaining % 10)
            remaining /= 10
        }
        count += digits
    }

    /// `value` (0–999) as exactly 3 digits, zeros in front.
    mutating func append(threeDigits value: Int) {
        guard capacity - count >= 3 else {
            overflow = true
            return
        }
        base[count] = UInt8(truncatingIfNeeded: 0x30 + value / 100 % 10)
        base[count + 1] = UInt8(truncatingIfNeeded: 0x30 + value / 10 % 10)
        base[count + 2] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
        count += 3
    }
}
