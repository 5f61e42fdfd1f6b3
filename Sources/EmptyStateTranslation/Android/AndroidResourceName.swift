/// Android resource names for unit ids, and back: `connectionRefused/actions.retry` ↔
/// `connectionRefused__actions_retry`.
///
/// A resource name becomes a Java field (`R.string.…`): letters, digits and `_` are the safe
/// set (aapt2 accepts `.` and `-` but maps `.` to `_`, so `a.b` and `a_b` would collide). In the
/// template id, `_` is written `_0` and `-` `_1`; `__` separates the key; in the key (letters,
/// digits and `.` only) `.` becomes `_`. Every `_` in the template half is followed by `0`, `1`
/// or `_`, so the name reads back without ambiguity.
package enum AndroidResourceName {
    package static func name(for id: UnitID) -> String {
        var name = ""
        for character in id.template {
            switch character {
            case "_": name += "_0"
            case "-": name += "_1"
            default: name.append(character)
            }
        }
        return name + "__" + id.key.replacingDots()
    }

    /// The unit id a resource name stands for, `nil` when the name is not one `name(for:)` makes.
    package static func unitID(forName name: String) -> UnitID? {
        var template = ""
        var index = name.startIndex
        while index < name.endIndex {
            let character = name[index]
            index = name.index(after: index)
            guard character == "_" else {
                template.append(character)
                continue
            }
            guard index < name.endIndex else { return nil }
            let next = name[index]
            index = name.index(after: index)
            switch next {
            case "0": template += "_"
            case "1": template += "-"
            case "_":
                let key = String(name[index...])
                guard !template.isEmpty, !key.isEmpty, !key.contains(".") else { return nil }
                return UnitID(template: template, key: key.replacingOccurrences("_", "."))
            default: return nil
            }
        }
        return nil
    }
}

extension String {
    fileprivate func replacingDots() -> String { replacingOccurrences(".", "_") }

    fileprivate func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
