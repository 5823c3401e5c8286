import APNs
import Foundation

/// How to run the simulator.
public struct MockConfiguration: Sendable {
    /// Address to listen on; loopback by default.
    public var host: String
    /// Port to listen on; 0 picks a free one (read it back from `MockServer.port`).
    public var port: Int
    /// The certificate and key the server presents.
    public var identity: TLSIdentity
    /// Checks provider tokens against the teams' keys (and which topics each team may push to).
    public var verifier: JWTVerifier
    /// Which APNs host this simulator is: development answers every 200 with an `apns-unique-id` too, as Apple's
    /// sandbox does, and client certificates must be valid for it. Production by default (today's answers, and
    /// apnsd's default environment).
    public var environment: Environment
    /// CA certificates (PEM) that client certificates are verified against: with it the TLS server asks for (does
    /// not require) a client certificate, and a connection that presented one may send requests without a token.
    /// Nil: no client certificates are asked for.
    public var clientCAPEM: String?
    /// Scripted behaviours and faults.
    public var scenario: Scenario
    /// The shortest time between two provider-token switches on one connection before 429 TooManyProviderTokenUpdates.
    public var tokenUpdateInterval: TimeInterval
    /// Event-loop threads; connections are spread over them by the kernel (SO_REUSEPORT).
    public var threads: Int
    /// Keep per-token status counts (costs memory for millions of tokens); `tokensAcceptedTwice` needs them.
    public var tracksTokens: Bool
    /// List the per-token counts in the statistics (`MockStats.tokens`, the `tokens` object of `/_mock/stats` and
    /// `--stats-out`). Off by default: the stats endpoint needs no credentials, and device tokens are personal data.
    /// Turns `tracksTokens` on.
    public var statsTokens: Bool
    /// Seconds a connection has to complete its TLS handshake before it is dropped.
    public var handshakeTimeout: TimeInterval
    /// Seconds a connection may carry no request (no HEADERS or DATA received, no answer sent) before it is sent
    /// GOAWAY with `{"reason":"IdleTimeout"}` and closed; 0 = never.
    public var idleTimeout: TimeInterval
    /// Write one line per push request here as it arrives: `<wall-clock ns since 1970> <apns-id or ->` (for latency
    /// benchmarks). Nil (the default): nothing is recorded.
    public var arrivalsFile: String?
    /// Bundle ids whose app lacks the Broadcast capability: their channel management and broadcast requests get
    /// 400 FeatureNotEnabled. Empty (the default): every app has it.
    public var withoutBroadcast: Set<String>
    /// Channels one app may hold (Apple: 10,000 per app per environment); a create past it gets 400
    /// CannotCreateChannelConfig.
    public var maxChannelsPerApp: Int

    public init(
        host: String = "127.0.0.1", port: Int = 0, identity: TLSIdentity, verifier: JWTVerifier,
        scenario: Scenario = Scenario(), tokenUpdateInterval: TimeInterval = 20 * 60, threads: Int = 1,
        tracksTokens: Bool = true, statsTokens: Bool = false,
        handshakeTimeout: TimeInterval = 10, idleTimeout: TimeInterval = 300, arrivalsFile: String? = nil,
        environment: Environment = .production, clientCAPEM: String? = nil,
        withoutBroadcast: Set<String> = [], maxChannelsPerApp: Int = 10_000
    ) {
        self.host = host
        self.port = port
        self.identity = identity
        self.verifier = verifier
        self.scenario = scenario
        self.tokenUpdateInterval = tokenUpdateInterval
        self.threads = threads
        self.tracksTokens = tracksTokens
        self.statsTokens = statsTokens
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
        self.arrivalsFile = arrivalsFile
        self.environment = environment
        self.clientCAPEM = clientCAPEM
        self.withoutBroadcast = withoutBroadcast
        self.maxChannelsPerApp = maxChannelsPerApp
    }
}
