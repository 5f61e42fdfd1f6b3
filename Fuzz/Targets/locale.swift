// libFuzzer target: BCP 47 tags (LocaleTag) and Accept-Language negotiation.
//
// The input is one text; it is parsed both as a tag and as an Accept-Language value.
// Invariants for a tag that parses:
// - its description is the input with `_` read as `-`, up to case, and parses to the same tag
//   (canonical form is a fixed point);
// - the lookup chain starts at the description, each entry is a proper prefix of the one before,
//   ends at the language, and no shortened entry ends on a single-character subtag;
// - `script` and `isRightToLeft` answer without trapping.
// Invariants for Accept-Language: at most 32 preferences, weights in (0, 1], sorted by weight;
// resolving them against a locale set always gives one of its tags.
import EmptyStateCore

private let locales = LocaleSet(
    tags: ["en", "en-GB", "fr", "pt-BR", "pt-PT", "zh-Hant-TW", "ar", "en-XA"],
    fallback: "en"
)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

    if let tag = LocaleTag(text) {
        let expected = String(text.map { $0 == "_" ? "-" : $0 })
        precondition(tag.description.lowercased() == expected.lowercased(), "\(text) became \(tag.description)")
        guard let again = LocaleTag(tag.description) else { fatalError("canonical \(tag.description) does not parse") }
        precondition(again == tag && again.description == tag.description, "canonical form is not a fixed point")

        let chain = tag.lookupChain
        precondition(chain.first == tag.description, "lookup chain of \(tag) starts at \(chain.first ?? "nothing")")
        precondition(chain.last == tag.language, "lookup chain of \(tag) ends at \(chain.last ?? "nothing")")
        for (longer, shorter) in zip(chain, chain.dropFirst()) {
            precondition(longer.hasPrefix(shorter + "-"), "\(shorter) is not a prefix of \(longer)")
        }
        // RFC 4647 §3.4: a shortened range never ends on a single-character subtag.
        for entry in chain.dropFirst() {
            precondition(
                entry.split(separator: "-").last?.count != 1,
                "lookup chain entry \(entry) ends on a singleton"
            )
        }
        if let script = tag.script { precondition(script.count == 4, "script \(script)") }
        _ = tag.isRightToLeft
        precondition(locales.resolve(tag).map(locales.contains) ?? true, "resolved to a tag outside the set")
    }

    let preferences = LocaleNegotiation.parseAcceptLanguage(text)
    precondition(preferences.count <= 32, "\(preferences.count) preferences")
    for preference in preferences {
        precondition(preference.quality > 0 && preference.quality <= 1, "weight \(preference.quality)")
    }
    for (earlier, later) in zip(preferences, preferences.dropFirst()) {
        precondition(earlier.quality >= later.quality, "preferences not sorted by weight")
    }
    precondition(locales.contains(locales.resolve(preferences)), "negotiated a tag outside the set")
    return 0
}
