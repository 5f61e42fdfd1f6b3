/// What a remembered answer was made from, as the application names it: a handler tags its
/// answer (`HTTPResponse.memoTag`), and the memo forgets the answers of the tags whose state
/// changed (`ResponseMemo.invalidate(tags:)`).
///
/// Tags are values of the application's own type, compared whole: two tags are the same only if
/// they are of the same type and equal, so no spelling of one (a template id, say) can name
/// another (the bundles, or an app platform). The memo knows nothing of what they mean.
package protocol MemoTag: Hashable, Sendable {}
