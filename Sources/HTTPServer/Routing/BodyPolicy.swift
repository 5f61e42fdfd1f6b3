/// A route's own terms for request bodies, in place of the server's `maxBodySize`: what a route
/// that takes files (a translation import of tens of MB) needs, without raising the limit of
/// every other route.
///
/// Both are applied with the request's head, before any byte of the body is read: a body over
/// `maxBytes` gets 413 at once when `Content-Length` says so, and a request `admit` refuses (no
/// valid token) is answered without its body ever being read, so a large limit is offered only
/// to callers the route would serve.
package struct BodyPolicy: Sendable {
    /// The largest body the route takes.
    package var maxBytes: Int
    /// Asked with the request as its head describes it (path, query and headers; an empty body)
    /// when a body is announced: a response refuses the request, `nil` lets the body be read.
    package var admit: (@Sendable (HTTPRequest) -> HTTPResponse?)?

    package init(maxBytes: Int, admit: (@Sendable (HTTPRequest) -> HTTPResponse?)? = nil) {
        self.maxBytes = maxBytes
        self.admit = admit
    }
}
