import APNs

/// What a pool of connections serves: one credential (team + key) on one APNs environment.
/// A connection carries one team's tokens only, so pools never mix credentials.
public struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    public var credentialID: String
    public var environment: Environment

    public init(credentialID: String, environment: Environment) {
        self.credentialID = credentialID
        self.environment = environment
    }

    public var description: String { "\(credentialID)/\(environment)" }
}
