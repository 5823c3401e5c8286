/// What the simulator saw, served at `GET /_mock/stats` and written to `--stats-out` on exit.
public struct MockStats: Codable, Sendable, Equatable {
    public var totals: Totals
    /// Open connections, and the most recent 10,000 closed ones.
    public var connections: [Connection]
    /// Per device token: the count of each status returned. Listed only when the simulator runs with
    /// `MockConfiguration.statsTokens` (`--stats-tokens`): empty otherwise, and absent from the JSON.
    public var tokens: [String: [String: Int]] {
        get { listedTokens ?? [:] }
        set { listedTokens = newValue }
    }
    /// The per-token counts when listed, nil when not.
    public var listedTokens: [String: [String: Int]]?
    /// Per APNs reason returned because a request broke a rule: count and one example.
    public var validationFailures: [String: Failure]

    private enum CodingKeys: String, CodingKey {
        case totals, connections, listedTokens = "tokens", validationFailures
    }

    public struct Totals: Codable, Sendable, Equatable {
        public var requests: Int
        /// Connections accepted since the start.
        public var connections: Int
        public var statuses: [String: Int]
        /// Every error answer by its reason (validation, credentials, scripted answers alike): tells
        /// BadCertificate from InvalidProviderToken, which share a status.
        public var reasons: [String: Int]
        /// Requests whose JWT was signed in DER instead of APNs's raw r‖s.
        public var derSignatures: Int
        /// Tokens that were answered 200 more than once (counted whether or not tokens are listed; 0 when token
        /// tracking is off).
        public var tokensAcceptedTwice: Int
    }

    public struct Connection: Codable, Sendable, Equatable {
        public var id: Int
        public var requests: Int
        /// The most requests that arrived within any sliding one-second window.
        public var maxRequestsPerSecond: Int
        /// How many different provider tokens (JWTs) the connection carried.
        public var distinctProviderTokens: Int
        public var statuses: [String: Int]
        public var open: Bool
        public var goawaySent: Bool
    }

    public struct Failure: Codable, Sendable, Equatable {
        public var count: Int
        public var example: String
    }

    /// Status count for one token (0 when never seen, or when tokens are not listed).
    public func count(token: String, status: Int) -> Int { tokens[token]?[String(status)] ?? 0 }
}
