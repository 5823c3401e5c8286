/// A device token as APNs expects it in the request path: an even number of lowercase hex characters.
///
/// Kept compact: the usual 32-byte token (64 hex characters) is held as its bytes, inline (a 64-character `String`
/// is a 112-byte heap allocation, and a campaign or an import holds a million tokens at once); any other length is
/// kept as its text. `hex` spells it when asked.
public struct DeviceToken: Hashable, Sendable, Comparable, CustomStringConvertible {
    private enum Storage: Hashable, Sendable {
        /// The 32 bytes of a 64-character token, most significant first, so that comparing the words in order
        /// compares the hex text (a lowercase digit's ASCII order is its value's).
        case packed(UInt64, UInt64, UInt64, UInt64)
        /// A token of any other length, as normalised text.
        case text(String)
    }

    private let storage: Storage

    /// The longest token accepted; Apple's are 32 bytes today but Apple says not to assume a length.
    public static let maximumHexLength = 200

    /// The normalised (lowercase) hex string.
    public var hex: String {
        switch storage {
        case .text(let text): return text
        case .packed(let a, let b, let c, let d):
            return String(unsafeUninitializedCapacity: 64) { buffer in
                Self.spell((a, b, c, d), into: buffer)
                return 64
            }
        }
    }

    /// The path of a notification to this device, `/3/device/<hex>`, spelled in one allocation.
    public var devicePath: String {
        let prefix: StaticString = "/3/device/"
        switch storage {
        case .text(let text): return prefix.description + text
        case .packed(let a, let b, let c, let d):
            return String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + 64) { buffer in
                let count = prefix.utf8CodeUnitCount
                _ = UnsafeMutableBufferPointer(rebasing: buffer[..<count]).initialize(
                    from: UnsafeBufferPointer(start: prefix.utf8Start, count: count))
                Self.spell((a, b, c, d), into: UnsafeMutableBufferPointer(rebasing: buffer[count...]))
                return count + 64
            }
        }
    }

    /// Calls `body` with the hex text's UTF-8 bytes, spelled on the stack for a packed token: for writers that copy
    /// the bytes anyway (a bound statement, an encoded record), without a `String` per token.
    public func withHexBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .text(let text):
            var text = text
            return try text.withUTF8(body)
        case .packed(let a, let b, let c, let d):
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
                Self.spell((a, b, c, d), into: buffer)
                return try body(UnsafeBufferPointer(buffer))
            }
        }
    }

    /// The first 16 characters of `hex` as ASCII bytes, big-endian in two words, zero-padded: a sort key that agrees
    /// with `<` (a token's key is never greater than that of a token after it).
    public var hexPrefix: (high: UInt64, low: UInt64) {
        switch storage {
        case .packed(let a, _, _, _):
            func ascii(_ nibbles: UInt64) -> UInt64 {
                var word: UInt64 = 0
                for i in 0..<8 {
                    word = word << 8 | UInt64(Self.digit(UInt8(truncatingIfNeeded: nibbles >> UInt64(28 - 4 * i))))
                }
                return word
            }
            return (ascii(a >> 32), ascii(a & 0xffff_ffff))
        case .text(let text):
            var words: (high: UInt64, low: UInt64) = (0, 0)
            for (i, byte) in text.utf8.prefix(16).enumerated() {
                if i < 8 {
                    words.high |= UInt64(byte) << UInt64(56 - 8 * i)
                } else {
                    words.low |= UInt64(byte) << UInt64(56 - 8 * (i - 8))
                }
            }
            return words
        }
    }

    /// Writes the 64 hex digits of a packed token's words into `buffer`.
    private static func spell(
        _ words: (UInt64, UInt64, UInt64, UInt64), into buffer: UnsafeMutableBufferPointer<UInt8>
    ) {
        func spell(_ word: UInt64, at offset: Int) {
            for i in 0..<16 { buffer[offset + i] = digit(UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * i))) }
        }
        spell(words.0, at: 0)
        spell(words.1, at: 16)
        spell(words.2, at: 32)
        spell(words.3, at: 48)
    }

    /// The lowercase hex digit of a nibble (the low 4 bits of `value`).
    private static func digit(_ value: UInt8) -> UInt8 {
        let nibble = value & 15
        return nibble < 10 ? nibble &+ 48 : nibble &+ 87
    }

    /// A 64-character token's 32 bytes as four words, most significant first (their order is the tokens'); nil for
    /// a token of another length.
    public var words: (UInt64, UInt64, UInt64, UInt64)? {
        guard case .packed(let a, let b, let c, let d) = storage else { return nil }
        return (a, b, c, d)
    }

    /// The 64-character token of these 32 bytes (`words`).
    public init(words: (UInt64, UInt64, UInt64, UInt64)) {
        storage = .packed(words.0, words.1, words.2, words.3)
    }

    /// The hex text's length.
    public var hexLength: Int {
        switch storage {
        case .text(let text): return text.utf8.count
        case .packed: return 64
        }
    }

    /// Validates and lowercases `string`; surrounding whitespace is ignored.
    public init(_ string: some StringProtocol) throws(APNsError) {
        var bytes = Array(string.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0D || last == 0x0A { bytes.removeLast() }
        var start = 0
        while start < bytes.count,
            bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0D || bytes[start] == 0x0A
        { start += 1 }
        if start > 0 { bytes.removeFirst(start) }
        guard !bytes.isEmpty else { throw .invalidDeviceToken("empty") }
        guard bytes.count % 2 == 0 else { throw .invalidDeviceToken("odd length \(bytes.count)") }
        guard bytes.count <= Self.maximumHexLength else {
            throw .invalidDeviceToken("\(bytes.count) characters is longer than \(Self.maximumHexLength)")
        }
        for i in bytes.indices {
            switch bytes[i] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): break
            case UInt8(ascii: "A")...UInt8(ascii: "F"): bytes[i] += 0x20
            default: throw .invalidDeviceToken("character \(i + 1) is not a hex digit")
            }
        }
        storage = bytes.withUnsafeBytes { Self.storage(normalized: $0) }
    }

    /// The token spelled by `bytes` when they are already normalised (lowercase even-length hex, nothing
    /// around it), else nil: the allocation-light path for bulk input. Use `init(_:)` to learn what is wrong.
    public init?(normalizedHex bytes: ArraySlice<UInt8>) {
        guard
            let storage = bytes.withUnsafeBytes({ raw in
                Self.isValidLowercaseHex(raw) ? Self.storage(normalized: raw) : nil
            })
        else { return nil }
        self.storage = storage
    }

    /// Whether `bytes` is already a valid normalised token (lowercase even-length hex), without allocating.
    private static func isValidLowercaseHex(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty, bytes.count % 2 == 0, bytes.count <= maximumHexLength else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            default: return false
            }
        }
        return true
    }

    /// The storage of validated lowercase hex.
    private static func storage(normalized bytes: UnsafeRawBufferPointer) -> Storage {
        guard bytes.count == 64 else { return .text(String(decoding: bytes, as: UTF8.self)) }
        func word(_ w: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in 0..<16 {
                let byte = bytes[w * 16 + i]
                value = value << 4 | UInt64(byte <= UInt8(ascii: "9") ? byte &- 48 : byte &- 87)
            }
            return value
        }
        return .packed(word(0), word(1), word(2), word(3))
    }

    /// A shortened form for logs and errors: the first 8 characters and the length.
    public var description: String {
        let length = hexLength
        return length <= 12 ? hex : "\(hex.prefix(8))…(\(length))"
    }

    public static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool {
        if case .packed(let a1, let b1, let c1, let d1) = lhs.storage,
            case .packed(let a2, let b2, let c2, let d2) = rhs.storage
        {
            return (a1, b1, c1, d1) < (a2, b2, c2, d2)
        }
        return lhs.hex < rhs.hex
    }
}
