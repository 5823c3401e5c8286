/// The `apns-id` header: a canonical lowercase UUID (8-4-4-4-12 hex digits).
public struct NotificationID: Hashable, Sendable, CustomStringConvertible {
    public let uuidString: String

    /// Validates `string` and lowercases it.
    public init(_ string: String) throws(APNsError) {
        guard Self.isCanonical(Array(string.utf8)) else { throw .invalidNotificationID(string) }
        uuidString = string.lowercased()
    }

    /// A fresh random (version 4) id.
    public static func random() -> NotificationID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A random (version 4) id from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> NotificationID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hexDigits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return NotificationID(unchecked: String(decoding: out, as: UTF8.self))
    }

    private init(unchecked: String) { uuidString = unchecked }

    /// An id read back from the queue, where it was validated when it was enqueued.
    public init(trusted uuidString: String) { self.uuidString = uuidString }

    /// Whether `bytes` spell a UUID in 8-4-4-4-12 form (either case).
    public static func isCanonical<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        guard bytes.count == 36 else { return false }
        for (i, byte) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !byte.isHexDigit {
                return false
            }
        }
        return true
    }

    public var description: String { uuidString }
}

extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self) || (0x41...0x46).contains(self)
    }
}
