import Foundation

/// What the simulator does beyond answering 200: per-token and per-app broadcast behaviours, and per-connection faults.
/// Loaded from the JSON file given with `--scenario`; the format is documented in the README.
public struct Scenario: Codable, Sendable, Equatable {
    /// Behaviours by exact device token (lowercase hex).
    public var tokens: [String: TokenBehaviour]
    /// Behaviours by token prefix, for scripting many tokens at once; exact tokens win.
    public var tokenPrefixes: [String: TokenBehaviour]
    /// Faults applied to connections.
    public var connection: ConnectionFaults
    /// Behaviours of broadcasts by bundle id (each channel of the app counts its own failures).
    public var broadcasts: [String: BroadcastBehaviour]

    public init(
        tokens: [String: TokenBehaviour] = [:], tokenPrefixes: [String: TokenBehaviour] = [:],
        connection: ConnectionFaults = ConnectionFaults(), broadcasts: [String: BroadcastBehaviour] = [:]
    ) {
        self.tokens = tokens
        self.tokenPrefixes = tokenPrefixes
        self.connection = connection
        self.broadcasts = broadcasts
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tokens = try container.decodeIfPresent([String: TokenBehaviour].self, forKey: .tokens) ?? [:]
        tokenPrefixes = try container.decodeIfPresent([String: TokenBehaviour].self, forKey: .tokenPrefixes) ?? [:]
        connection = try container.decodeIfPresent(ConnectionFaults.self, forKey: .connection) ?? ConnectionFaults()
        broadcasts = try container.decodeIfPresent([String: BroadcastBehaviour].self, forKey: .broadcasts) ?? [:]
        tokens = Dictionary(uniqueKeysWithValues: tokens.map { ($0.key.lowercased(), $0.value) })
        tokenPrefixes = Dictionary(uniqueKeysWithValues: tokenPrefixes.map { ($0.key.lowercased(), $0.value) })
    }

    /// Reads and validates a scenario file, with a one-line error naming the file and the problem.
    public static func load(path: String) throws -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MockError.badScenario("cannot read scenario file \(path)")
        }
        do {
            let scenario = try JSONDecoder().decode(Scenario.self, from: data)
            try scenario.validate()
            return scenario
        } catch let error as MockError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            throw MockError.badScenario("\(path): \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, _) {
            throw MockError.badScenario("\(path): missing key '\(key.stringValue)'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw MockError.badScenario(
                "\(path): wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))")
        } catch {
            throw MockError.badScenario("\(path): \(error)")
        }
    }

    func validate() throws {
        for (token, behaviour) in tokens.merging(tokenPrefixes, uniquingKeysWith: { a, _ in a }) {
            guard !token.isEmpty, token.utf8.allSatisfy({ $0.isLowercaseHex }) else {
                throw MockError.badScenario("'\(token)' is not a hex token or prefix")
            }
            try behaviour.validate(token: token)
        }
        for (bundleID, behaviour) in broadcasts {
            guard !bundleID.isEmpty, !bundleID.contains("/") else {
                throw MockError.badScenario("broadcasts: '\(bundleID)' is not a bundle id")
            }
            try behaviour.validate(bundleID: bundleID)
        }
        if let numbers = connection.failHandshakes, let bad = numbers.first(where: { $0 < 1 }) {
            throw MockError.badScenario("connection.failHandshakes: \(bad) is not a connection number (1 is the first)")
        }
    }

    var isEmpty: Bool { tokens.isEmpty && tokenPrefixes.isEmpty }
}

/// How the simulator answers one device token.
public struct TokenBehaviour: Codable, Sendable, Equatable {
    /// A fixed answer: `unregistered`, `expiredToken`, `badDeviceToken`, `notForTopic`, or `ok` (default).
    public var respond: Response?
    /// For `unregistered` and `expiredToken`: the 410 timestamp in ms since 1970, or absent for "now".
    public var timestamp: Int64?
    /// Answer `failStatus` this many times before answering normally.
    public var failTimes: Int?
    /// 429, 500 or 503 (default 429).
    public var failStatus: Int?
    /// Wait this long before answering.
    public var delayMs: Int?

    public enum Response: String, Codable, Sendable {
        case ok, unregistered, expiredToken, badDeviceToken, notForTopic
    }

    public init(
        respond: Response? = nil, timestamp: Int64? = nil, failTimes: Int? = nil,
        failStatus: Int? = nil, delayMs: Int? = nil
    ) {
        self.respond = respond
        self.timestamp = timestamp
        self.failTimes = failTimes
        self.failStatus = failStatus
        self.delayMs = delayMs
    }

    func validate(token: String) throws {
        if let failStatus, ![429, 500, 503].contains(failStatus) {
            throw MockError.badScenario("token \(token): failStatus must be 429, 500 or 503, not \(failStatus)")
        }
        if let failTimes, failTimes < 0 { throw MockError.badScenario("token \(token): failTimes must be ≥ 0") }
        if let delayMs, delayMs < 0 || delayMs > 600_000 {
            throw MockError.badScenario("token \(token): delayMs must be between 0 and 600000")
        }
    }
}

/// Faults the simulator injects into connections.
public struct ConnectionFaults: Codable, Sendable, Equatable {
    /// Send GOAWAY (last-stream-id = this request's stream) after this many requests on a connection.
    public var goawayAfter: Int?
    /// Close the socket without answering after this many requests on a connection.
    public var closeAfter: Int?
    /// Apply the faults above only to the first N connections accepted (default: every connection).
    public var faultyConnections: Int?
    /// SETTINGS_MAX_CONCURRENT_STREAMS (default 1000).
    public var maxConcurrentStreams: Int?
    /// Allow one stream until the first request with a valid token, as APNs does.
    public var singleStreamUntilAuthorized: Bool?
    /// Fail the TLS handshake of these connections (1 = the first accepted): the socket is closed unanswered.
    public var failHandshakes: [Int]?

    public init(
        goawayAfter: Int? = nil, closeAfter: Int? = nil, faultyConnections: Int? = nil,
        maxConcurrentStreams: Int? = nil, singleStreamUntilAuthorized: Bool? = nil, failHandshakes: [Int]? = nil
    ) {
        self.failHandshakes = failHandshakes
        self.goawayAfter = goawayAfter
        self.closeAfter = closeAfter
        self.faultyConnections = faultyConnections
        self.maxConcurrentStreams = maxConcurrentStreams
        self.singleStreamUntilAuthorized = singleStreamUntilAuthorized
    }
}

extension UInt8 {
    var isLowercaseHex: Bool { (0x30...0x39).contains(self) || (0x61...0x66).contains(self) }
}
