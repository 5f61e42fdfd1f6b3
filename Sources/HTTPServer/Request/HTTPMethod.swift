/// An HTTP request method. Methods the router does not know arrive as `.other`.
package enum HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    case get, head, post, put, delete, patch, options
    case other(String)

    package init(_ token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "PATCH": self = .patch
        case "OPTIONS": self = .options
        default: self = .other(token)
        }
    }

    /// The method of a request as libmicrohttpd hands it over.
    init(cString: UnsafePointer<CChar>) {
        // GET is nearly every request: recognise it without making a String. Each byte is read
        // only when the ones before it matched, so never past the terminating NUL.
        if cString[0] == 0x47, cString[1] == 0x45, cString[2] == 0x54, cString[3] == 0 {
            self = .get
        } else {
            self.init(String(cString: cString))
        }
    }

    package var description: String {
        switch self {
        case .get: return "GET"
        case .head: return "HEAD"
        case .post: return "POST"
        case .put: return "PUT"
        case .delete: return "DELETE"
        case .patch: return "PATCH"
        case .options: return "OPTIONS"
        case .other(let token): return token
        }
    }
}
