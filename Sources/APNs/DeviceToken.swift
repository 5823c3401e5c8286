/// A device token as APNs expects it in the request path: an even number of lowercase hex characters.
public struct DeviceToken: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The normalised (lowercase) hex string.
    public let hex: String

    /// The longest token accepted; Apple's are 32 bytes today but Apple says not to assume a length.
    public static let maximumHexLength = 200

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
        hex = String(decoding: bytes, as: UTF8.self)
    }

    /// The token spelled by `bytes` when they are already normalised (lowercase even-length hex, nothing
    /// around it), else nil: the allocation-light path for bulk input. Use `init(_:)` to learn what is wrong.
    public init?(normalizedHex bytes: ArraySlice<UInt8>) {
        guard bytes.withUnsafeBytes({ Self.isValidLowercaseHex($0) }) else { return nil }
        hex = String(decoding: bytes, as: UTF8.self)
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

    /// A shortened form for logs and errors: the first 8 characters and the length.
    public var description: String {
        hex.count <= 12 ? hex : "\(hex.prefix(8))…(\(hex.count))"
    }

    public static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool { lhs.hex < rhs.hex }
}
