/// A comment, approval or rejection of a change request: a record of its own, beside the
/// request, saying who, when, and at which version of the request (an approval counts only for
/// the version it was given at: any edit after it resets it).
package struct ReviewRecord: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case comment, approval, rejection
    }

    package var changeRequestID: Int
    /// Its number among every review record of the store, in the order they were made.
    package var seq: Int
    package var kind: Kind
    /// A token's name.
    package var author: String
    /// `Timestamp.now()`.
    package var at: String
    /// The version of the request it was made at.
    package var version: Int
    /// What the author wrote (a comment's text, or why an approval or rejection); may be empty
    /// for an approval.
    package var text: String

    package init(
        changeRequestID: Int,
        seq: Int,
        kind: Kind,
        author: String,
        at: String,
        version: Int,
        text: String
    ) {
        self.changeRequestID = changeRequestID
        self.seq = seq
        self.kind = kind
        self.author = author
        self.at = at
        self.version = version
        self.text = text
    }
}
