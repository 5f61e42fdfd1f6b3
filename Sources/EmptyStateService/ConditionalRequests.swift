/// Header parsing for content negotiation and revalidation.
enum ConditionalRequests {
    /// Whether `If-None-Match` matches one of `etags` (weak comparison, RFC 9110 §13.1.2).
    static func noneMatch(_ header: String, matches etags: [String]) -> Bool {
        for item in header.split(separator: ",") {
            var tag = item.drop { $0 == " " || $0 == "\t" }
            while let last = tag.last, last == " " || last == "\t" { tag = tag.dropLast() }
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if etags.contains(where: { $0 == tag }) { return true }
        }
        return false
    }

    /// Whether `Accept-Encoding` accepts gzip (explicitly or through `*`) with a non-zero weight.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header, !header.isEmpty else { return false }
        var gzipQuality: Double?
        var wildcardQuality: Double?
        for item in header.split(separator: ",") {
            let fields = item.split(separator: ";")
            guard let coding = fields.first?.lowercased().filter({ $0 != " " && $0 != "\t" }) else { continue }
            var quality = 1.0
            for parameter in fields.dropFirst() {
                let pair = parameter.filter { $0 != " " && $0 != "\t" }.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].lowercased() == "q", let value = Double(pair[1]) { quality = value }
            }
            if coding == "gzip" || coding == "x-gzip" {
                gzipQuality = quality
            } else if coding == "*" {
                wildcardQuality = quality
            }
        }
        return (gzipQuality ?? wildcardQuality ?? 0) > 0
    }
}
