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
    /// Broadcast channels: management requests, broadcasts, and each channel (these requests count in `totals` too).
    public var channels: Channels

    private enum CodingKeys: String, CodingKey {
        case totals, connections
        case listedTokens = "tokens"
        case validationFailures, channels
    }

    /// Statistics made of these parts (the simulator makes them; tests and tools may too).
    public init(
        totals: Totals, connections: [Connection], listedTokens: [String: [String: Int]]?,
        validationFailures: [String: Failure], channels: Channels = Channels()
    ) {
        self.totals = totals
        self.connections = connections
        self.listedTokens = listedTokens
        self.validationFailures = validationFailures
        self.channels = channels
    }

    /// Decodes `/_mock/stats` JSON; one without `channels` (an older simulator's) gets empty channel counts.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        totals = try container.decode(Totals.self, forKey: .totals)
        connections = try container.decode([Connection].self, forKey: .connections)
        listedTokens = try container.decodeIfPresent([String: [String: Int]].self, forKey: .listedTokens)
        validationFailures = try container.decode([String: Failure].self, forKey: .validationFailures)
        // Statistics written before the simulator knew channels have none.
        channels = try container.decodeIfPresent(Channels.self, forKey: .channels) ?? Channels()
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

    /// What the simulator did on the broadcast paths.
    public struct Channels: Codable, Sendable, Equatable {
        /// Requests answered per operation (`create`, `read`, `delete`, `list`, `broadcast`; `other` for a method the
        /// path does not take), whatever the answer.
        public var requests: [String: Int]
        /// Channels created and deleted since the start, and held now.
        public var created: Int
        public var deleted: Int
        public var open: Int
        /// Broadcasts answered 200, all channels together.
        public var broadcastsAccepted: Int
        /// Error answers on the broadcast paths, by reason (also counted in `totals.reasons`).
        public var reasons: [String: Int]
        /// Every channel held, and the last 10,000 deleted, by channel id.
        public var byID: [String: ChannelEntry]

        /// Channel counts; all zero by default.
        public init(
            requests: [String: Int] = [:], created: Int = 0, deleted: Int = 0, open: Int = 0,
            broadcastsAccepted: Int = 0,
            reasons: [String: Int] = [:], byID: [String: ChannelEntry] = [:]
        ) {
            self.requests = requests
            self.created = created
            self.deleted = deleted
            self.open = open
            self.broadcastsAccepted = broadcastsAccepted
            self.reasons = reasons
            self.byID = byID
        }
    }

    /// One broadcast channel as the statistics show it.
    public struct ChannelEntry: Codable, Sendable, Equatable {
        public var bundleID: String
        /// 0: no message stored; 1: the most recent one stored.
        public var messageStoragePolicy: Int
        /// Broadcasts accepted (200) on it.
        public var broadcasts: Int
        public var deleted: Bool

        /// One channel's entry.
        public init(bundleID: String, messageStoragePolicy: Int, broadcasts: Int, deleted: Bool) {
            self.bundleID = bundleID
            self.messageStoragePolicy = messageStoragePolicy
            self.broadcasts = broadcasts
            self.deleted = deleted
        }
    }

    /// Broadcasts accepted on `channel` (0 for a channel never seen, or deleted and forgotten).
    public func broadcasts(channel: String) -> Int { channels.byID[channel]?.broadcasts ?? 0 }

    /// Status count for one token (0 when never seen, or when tokens are not listed).
    public func count(token: String, status: Int) -> Int { tokens[token]?[String(status)] ?? 0 }
}
