/// An event's id: increasing in the order events were written, never reused (also after pruning); the cursor of
/// the event feed and of the webhook.
public struct EventID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Parses a cursor as printed (`description`): a decimal integer ≥ 0 ("0" is before every event).
    public init?(cursor: String) {
        guard cursor.utf8.count <= 19, cursor.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(cursor)
        else { return nil }
        rawValue = value
    }

    /// Before every event.
    public static let start = EventID(0)

    public static func < (lhs: EventID, rhs: EventID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}
