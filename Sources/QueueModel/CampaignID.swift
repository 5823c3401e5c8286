/// A campaign's id: the integer printed by `apnsd send` and `apnsd campaign create`.
public struct CampaignID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Parses the decimal form printed by the CLI.
    public init?(_ string: String) {
        guard let value = Int64(string), value > 0 else { return nil }
        rawValue = value
    }

    public static func < (lhs: CampaignID, rhs: CampaignID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}
