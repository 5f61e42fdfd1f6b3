import EmptyStateCore
import HTTPServer
import Synchronization

// A representation served (one template or bundle in one locale for one platform): its
// identity and gzip variants with their ETags, and the HTTP answers prepared from it.

extension CatalogueSnapshot {
    /// One encoding of a representation.
    package struct Variant: Sendable {
        package let body: SharedBytes
        /// A strong, quoted ETag.
        package let etag: String
    }

    /// One representation: identity bytes (made at once, or on first use), and gzip bytes (made
    /// on the first request that accepts them, on that request's thread or a background one).
    package final class Representation: Sendable {
        /// The identity variant's strong, quoted ETag.
        package let etag: String
        package let contentLanguage: String
        /// JSON for templates and bundles; HTML and the web assets have theirs.
        package let contentType: String
        /// Sent with every answer of this representation besides the usual ones (the HTML's
        /// `Content-Security-Policy`).
        package let extraHeaders: [(name: String, value: String)]
        /// Known without compressing, so a 304 never needs the gzip bytes.
        package let gzipETag: String
        private let body: LazyBytes
        private let compressed: CompressedBody
        private let answers = PreparedAnswers()

        /// Wraps bytes already rendered; the ETag is their hash.
        package init(
            bytes: [UInt8],
            contentLanguage: String,
            contentType: String = Representation.json,
            extraHeaders: [(name: String, value: String)] = []
        ) {
            let hash = ContentHash.hex(bytes)
            etag = "\"\(hash)\""
            gzipETag = "\"\(hash)-gzip\""
            body = LazyBytes(SharedBytes(bytes))
            compressed = CompressedBody(inBackground: false)
            self.contentLanguage = contentLanguage
            self.contentType = contentType
            self.extraHeaders = extraHeaders
        }

        package static let json = "application/json; charset=utf-8"

        /// A representation whose bytes are made by `make` when first needed, with an ETag known
        /// from elsewhere (`tag`, unquoted); its gzip bytes are made in the background.
        init(tag: String, contentLanguage: String, make: @escaping @Sendable () -> [UInt8]) {
            etag = "\"\(tag)\""
            gzipETag = "\"\(tag)-gzip\""
            body = LazyBytes(make: make)
            compressed = CompressedBody(inBackground: true)
            self.contentLanguage = contentLanguage
            contentType = Self.json
            extraHeaders = []
        }

        /// The identity variant (made now if it was not yet).
        package var identity: Variant { Variant(body: body.bytes, etag: etag) }

        /// The gzip variant; `nil` when compressing does not make the body smaller, and, for a
        /// representation compressed in the background, until the bytes are ready.
        package var gzip: Variant? {
            compressed.bytes(of: body).map { Variant(body: $0, etag: gzipETag) }
        }

        /// Whether `gzip` is `nil` only because its bytes are not made yet: an answer without them
        /// must not be remembered.
        package var gzipPending: Bool { compressed.isPending }

        /// The prepared response in `slot` (one of `PreparedAnswers.slotCount` kinds of answer the
        /// caller numbers), made by `make` the first time it is asked for and kept.
        package func prepared(slot: Int, make: () -> PreparedResponse) -> PreparedResponse {
            answers.prepared(slot: slot, make: make)
        }
    }

    /// The answers a representation gets (200 or 304, identity or gzip, which `Vary`, and how it
    /// depends on the install id: `ClientAPI.InstallDependence`), each made on first use: most
    /// representations are never asked for in most of the ways.
    package final class PreparedAnswers: Sendable {
        package static let slotCount = 24
        private let slots = Mutex<[PreparedResponse?]>(Array(repeating: nil, count: slotCount))

        func prepared(slot: Int, make: () -> PreparedResponse) -> PreparedResponse {
            if let known = slots.withLock({ $0[slot] }) { return known }
            // Made outside the lock; when two threads race, the first one stored wins.
            let made = make()
            return slots.withLock { slots in
                if let known = slots[slot] { return known }
                slots[slot] = made
                return made
            }
        }
    }
}
