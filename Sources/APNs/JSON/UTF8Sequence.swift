/// One multi-byte UTF-8 sequence checked for well-formedness per Unicode table 3-7 (what `String(validating:)`
/// accepts): the payload validator and the request parser read UTF-8 in place with the same rule.
public enum UTF8Sequence {
    /// What `check` found at an index.
    public enum Result: Equatable, Sendable {
        /// A well-formed sequence of this many bytes.
        case length(Int)
        /// The bytes end inside the sequence.
        case truncated
        case invalid
    }

    /// The multi-byte sequence that starts at `index` (a byte ≥ 0x80).
    public static func check(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Result {
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch bytes[index] {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return .invalid
        }
        guard index + length <= bytes.count else { return .truncated }
        guard (low...high).contains(bytes[index + 1]) else { return .invalid }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return .invalid }
        return .length(length)
    }
}
