/// The `apns-expiration` header: until when APNs keeps trying to deliver, in UNIX seconds.
public struct Expiration: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// UNIX seconds; 0 means "try once, do not store".
    public let secondsSince1970: Int64

    public init(secondsSince1970: Int64) throws(APNsError) {
        guard secondsSince1970 >= 0 else { throw .invalidExpiration(String(secondsSince1970)) }
        self.secondsSince1970 = secondsSince1970
    }

    /// Parses decimal UNIX seconds.
    public static func parse(_ string: String) throws(APNsError) -> Expiration {
        guard let seconds = Int64(string) else { throw .invalidExpiration(string) }
        return try Expiration(secondsSince1970: seconds)
    }

    /// APNs tries once and does not store the notification.
    public static let immediately = try! Expiration(secondsSince1970: 0)

    /// Whether a retry at `unixSeconds` would be later than this expiration allows.
    public func forbidsAttempt(atUnixSeconds unixSeconds: Int64) -> Bool {
        secondsSince1970 == 0 ? false : unixSeconds > secondsSince1970
    }

    public static func < (lhs: Expiration, rhs: Expiration) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    public var description: String { String(secondsSince1970) }
}
