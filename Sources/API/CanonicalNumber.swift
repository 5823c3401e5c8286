/// A number in a path is written one way only: decimal digits, no sign, no leading zero. `+1` or `0001` would name
/// the same row as `1` to Swift's parser, and a cache or log keyed by path would take them for other resources.
enum CanonicalNumber {
    static func isCanonical(_ text: String) -> Bool {
        let digits = text.utf8
        guard let first = digits.first, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        return first != UInt8(ascii: "0") || digits.count == 1
    }

    /// True when `text` reads as a number but not canonically: digits with a leading zero, or a sign before digits.
    static func isNonCanonicalNumber(_ text: String) -> Bool {
        let unsigned = text.first == "+" || text.first == "-" ? String(text.dropFirst()) : text
        guard !unsigned.isEmpty, unsigned.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        return !isCanonical(text)
    }
}
