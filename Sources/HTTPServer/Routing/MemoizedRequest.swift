/// The request headers a memoized route's answers may depend on: an enumeration whose raw values
/// are the header names (`case acceptLanguage = "Accept-Language"`).
///
/// A memoized route names its enumeration when it is registered
/// (`Router.get(_:memoizedVaryingOn:_:)`); its handler then reads headers only through it
/// (`MemoizedRequest`), and the server's memo key is made of the values of every case of every
/// such enumeration. What the handler can read and what the key holds come from the same list,
/// so an answer that depends on a header the key leaves out cannot be written.
package protocol VaryingHeaders: CaseIterable, Sendable, RawRepresentable where RawValue == String {}

/// A request to a memoized route, as its handler sees it: the method, the path, the query and the
/// headers of `Headers`, which is everything the memo's key is made of, and nothing else.
///
/// The server may answer the same request again with what this handler answered (see
/// `ResponseMemo`), so the answer must not depend on anything the key leaves out. That holds by
/// construction: there is no way to read another header or the body (a memoized request has
/// none) from here.
package struct MemoizedRequest<Headers: VaryingHeaders>: Sendable {
    fileprivate let request: HTTPRequest

    /// The request, seen through `Headers` (the router makes these; tests may too).
    package init(_ request: HTTPRequest) {
        self.request = request
    }

    /// `GET` or `HEAD`.
    package var method: HTTPMethod { request.method }

    /// The decoded path, without the query.
    package var path: String { request.path }

    /// The decoded query arguments in arrival order.
    package var query: [(name: String, value: String)] { request.query }

    /// Values of `{name}` segments of the matched route.
    package var pathParameters: PathParameters { request.pathParameters }

    /// The request's id, for the answers that are not remembered (problems): the memo lends each
    /// remembered answer with the id of the request it answers, so an id written into a prepared
    /// body would reach other clients.
    package var id: String { request.id }

    /// The first value of the query argument `name`.
    package func queryValue(_ name: String) -> String? {
        request.queryValue(name)
    }

    /// The field value of `header`; repeated fields joined with ", ".
    package func header(_ header: Headers) -> String? {
        request.headers[header.rawValue]
    }
}

extension MemoizedRequest {
    /// Answers with `answer`, which may also read the headers of `Extra` (headers the memo's key
    /// does not hold), and which the server therefore never remembers: its `memoTag` is cleared
    /// whatever `answer` set.
    ///
    /// This is how a memoized route answers the few requests that depend on a header the key
    /// leaves out (a template in a copy experiment, which depends on `X-Install-ID`) while every
    /// other request keeps the memo and a key without that header. The extra headers can be read
    /// only inside `answer`, and nothing answered from there is remembered: the promise of
    /// `ResponseMemo` holds by construction here too. The server still looks the request up
    /// first, so the handler must make sure no answer of the same URL is remembered while such
    /// answers are given (one that depends on state whose change invalidates the memo does).
    package func unremembered<Extra: VaryingHeaders>(
        reading extra: Extra.Type,
        _ answer: (UnrememberedRequest<Headers, Extra>) -> HTTPResponse
    ) -> HTTPResponse {
        var response = answer(UnrememberedRequest(memoized: self, request: request))
        response.memoTag = nil
        return response
    }
}

/// A request to a memoized route answered without the memo (`MemoizedRequest.unremembered`):
/// the memoized view, plus the headers of `Extra`.
package struct UnrememberedRequest<Headers: VaryingHeaders, Extra: VaryingHeaders>: Sendable {
    /// The request as the route's handler sees it otherwise.
    package let memoized: MemoizedRequest<Headers>
    fileprivate let request: HTTPRequest

    /// The field value of `header`; repeated fields joined with ", ".
    package func header(_ header: Extra) -> String? {
        request.headers[header.rawValue]
    }
}
