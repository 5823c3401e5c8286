import APNs

/// Sorting in the order SQLite's BINARY collation gives strings (byte by byte), fast: elements are sorted by
/// their key's first 16 UTF-8 bytes taken as two integers, and only runs that tie on them are compared in full.
package enum ByteOrder {
    /// The first 16 bytes of a key, big-endian, zero-padded.
    package struct Prefix: Comparable {
        var high: UInt64
        var low: UInt64

        package init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        /// A token's key, without spelling its hex.
        package init(_ token: DeviceToken) {
            (high, low) = token.hexPrefix
        }

        package init(_ string: String) {
            var bytes = (high: UInt64(0), low: UInt64(0))
            var count = 0
            for byte in string.utf8 {
                if count == 16 { break }
                if count < 8 {
                    bytes.high |= UInt64(byte) << (56 - 8 * UInt64(count))
                } else {
                    bytes.low |= UInt64(byte) << (56 - 8 * UInt64(count - 8))
                }
                count += 1
            }
            (high, low) = bytes
        }

        package static func < (a: Prefix, b: Prefix) -> Bool { a.high != b.high ? a.high < b.high : a.low < b.low }
    }

    /// The indices `0..<count` in the order `precedes` defines, where `prefix` must agree with it: `precedes(a, b)`
    /// implies `prefix(a) <= prefix(b)`. Elements are not touched while the prefixes are sorted.
    package static func indices(count: Int, prefix: (Int) -> Prefix, precedes: (Int, Int) -> Bool) -> [Int] {
        var keys = (0..<count).map { (prefix: prefix($0), index: $0) }
        keys.sort { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : $0.index < $1.index }
        guard count > 1 else { return keys.map(\.index) }
        var runStart = 0
        for end in 1...count where end == count || keys[end].prefix != keys[runStart].prefix {
            if end - runStart > 1 { keys[runStart..<end].sort { precedes($0.index, $1.index) } }
            runStart = end
        }
        return keys.map(\.index)
    }

    /// Whether `a` sorts before `b` byte by byte.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
