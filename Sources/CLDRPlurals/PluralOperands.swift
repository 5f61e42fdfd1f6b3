/// CLDR's operands of a number as it is written (UTS #35, "Plural Operand Meanings"): `n` its
/// absolute value, `i` its integer digits, `v`/`w` how many fraction digits it shows with and
/// without trailing zeros, `f`/`t` those digits as a number, `e`/`c` the exponent of the
/// compact form (`1.2c6`).
///
/// Digits are kept as text, so any length is exact: a rule only ever takes one modulo 10ⁿ of
/// them or compares them with small ranges.
struct PluralOperands: Sendable {
    /// `i`: no leading zeros, `"0"` for none.
    var integer: Digits
    /// The visible fraction digits, trailing zeros included (`v` is their count).
    var fraction: String
    /// `e` and `c`.
    var exponent: Int

    init(integer: UInt) {
        self.integer = Digits(String(integer))
        fraction = ""
        exponent = 0
    }

    /// Parses `-?digits(.digits)?([ce]digits)?`; `nil` for anything else.
    init?(_ text: String) {
        var rest = Substring(text)
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        var exponent = 0
        if let marker = rest.firstIndex(where: { $0 == "c" || $0 == "e" }) {
            let digits = rest[rest.index(after: marker)...]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits) else {
                return nil
            }
            exponent = value
            rest = rest[..<marker]
        }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard parts.count == 1 || (!fraction.isEmpty && fraction.allSatisfy(\.isASCIIDigit)) else { return nil }
        // The compact form's value: the decimal point moved `exponent` places to the right.
        var integer = String(whole)
        let moved = min(exponent, fraction.count)
        integer += fraction.prefix(moved)
        fraction = String(fraction.dropFirst(moved))
        integer += String(repeating: "0", count: exponent - moved)
        self.integer = Digits(integer)
        self.fraction = fraction
        self.exponent = exponent
    }

    /// The value of an operand (`n`, `i`, `v`, `w`, `f`, `t`, `e`, `c`); `nil` for `n` when it is
    /// not a whole number (a rule's ranges hold whole numbers only).
    func value(_ operand: Character) -> Digits? {
        let trimmed = String(fraction.reversed().drop { $0 == "0" }.reversed())
        switch operand {
        case "n": return trimmed.isEmpty ? integer : nil
        case "i": return integer
        case "v": return Digits(String(fraction.count))
        case "w": return Digits(String(trimmed.count))
        case "f": return Digits(fraction)
        case "t": return Digits(trimmed)
        default: return Digits(String(exponent))  // e, c
        }
    }
}

/// A whole number as its decimal digits, of any length.
struct Digits: Sendable {
    private let text: Substring

    init(_ digits: String) {
        let significant = digits.drop { $0 == "0" }
        text = significant.isEmpty ? "0" : significant
    }

    /// The number, `nil` when it does not fit (then it is beyond every range a rule names).
    var value: UInt64? { text.count <= 18 ? UInt64(text) : nil }

    func modulo(_ divisor: UInt64) -> UInt64 {
        text.reduce(0) { ($0 * 10 + UInt64($1.asciiValue! - 48)) % divisor }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// One CLDR plural condition, as CLDR (and babel) write it: `relation (and relation)* (or …)*`,
/// a relation `operand (mod m)? (in | not in) ranges`, ranges `a..b` or `a` separated by `,`.
struct Condition: Sendable {
    private struct Relation: Sendable {
        var operand: Character
        var modulus: UInt64?
        var negated: Bool
        var ranges: [ClosedRange<UInt64>]

        func holds(for operands: PluralOperands) -> Bool {
            guard let digits = operands.value(operand) else { return negated }
            let value = modulus.map(digits.modulo) ?? digits.value
            let inside = value.map { value in ranges.contains { $0.contains(value) } } ?? false
            return inside != negated
        }
    }

    /// Alternatives (`or`) of conjunctions (`and`).
    private let alternatives: [[Relation]]

    /// Parses the generated rules; they are CLDR's, checked by the tests, so a malformed one is a
    /// bug of the generator and stops the process.
    init(_ text: Substring) {
        var alternatives: [[Relation]] = [[]]
        var tokens = text.split(separator: " ")[...]
        while let operand = tokens.popFirst() {
            switch operand {
            case "or":
                alternatives.append([])
                continue
            case "and":
                continue
            default:
                break
            }
            precondition(operand.count == 1 && "nivwftec".contains(operand), "CLDR operand \(operand)")
            var relation = Relation(operand: operand.first!, modulus: nil, negated: false, ranges: [])
            if tokens.first == "mod" {
                tokens.removeFirst()
                relation.modulus = UInt64(tokens.removeFirst())!
            }
            if tokens.first == "not" {
                tokens.removeFirst()
                relation.negated = true
            }
            precondition(tokens.removeFirst() == "in", "CLDR rules are written with in and not in")
            relation.ranges = tokens.removeFirst().split(separator: ",").map { range in
                let bounds = range.split(separator: ".", omittingEmptySubsequences: true)
                return UInt64(bounds[0])!...UInt64(bounds[bounds.count - 1])!
            }
            alternatives[alternatives.count - 1].append(relation)
        }
        self.alternatives = alternatives
    }

    func holds(for operands: PluralOperands) -> Bool {
        alternatives.contains { relations in relations.allSatisfy { $0.holds(for: operands) } }
    }
}
