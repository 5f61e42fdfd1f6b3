// libFuzzer target: the JSON parser, checked against the writer.
//
// Invariants, for every input the parser accepts:
// - writing the value and parsing the output gives an equal value (`JSONValue ==`);
// - the writer's output is a fixed point: writing that second value gives the same bytes;
// For every input it refuses: the error's offset lies within the input.
import JSONCoding

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let value: JSONValue
    do {
        value = try JSONParser.parse(bytes)
    } catch {
        precondition(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the input")
        return 0
    }

    var writer = JSONWriter()
    writer.value(value)
    let written = writer.bytes
    let reparsed: JSONValue
    do {
        reparsed = try JSONParser.parse(written)
    } catch {
        fatalError("the writer's output does not parse: \(error)\n\(String(decoding: written, as: UTF8.self))")
    }
    precondition(
        reparsed == value,
        "round trip changed the value\n  in:  \(String(decoding: bytes, as: UTF8.self))\n  out: \(String(decoding: written, as: UTF8.self))"
    )
    var again = JSONWriter()
    again.value(reparsed)
    precondition(again.bytes == written, "the writer's output is not a fixed point")

    // A shallower limit may refuse the document, but must not crash on it.
    _ = try? JSONParser.parse(bytes, maximumDepth: 2)
    return 0
}
