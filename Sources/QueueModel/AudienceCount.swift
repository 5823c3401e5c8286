import APNs

/// How many deliveries a campaign's audience would make now, by environment: what a dry run answers.
public struct AudienceCount: Hashable, Sendable {
    public var production: Int
    public var development: Int

    public init(production: Int = 0, development: Int = 0) {
        self.production = production
        self.development = development
    }

    /// `count` more in `environment`.
    public mutating func add(_ count: Int, in environment: Environment) {
        if environment == .development { development += count } else { production += count }
    }
}
