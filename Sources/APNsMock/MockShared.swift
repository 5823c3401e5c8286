import APNs
import Foundation

/// What every event loop of one simulator shares: configuration, the scenario and the stats ledger.
final class MockShared: Sendable {
    let tls: TLSServerContext
    let verifier: JWTVerifier
    /// Whether any team restricts its topics (else the per-request topic check is skipped).
    let teamsRestrictTopics: Bool
    let environment: Environment
    /// Whether the TLS server asks for client certificates.
    let asksClientCertificates: Bool
    let tokenUpdateInterval: TimeInterval
    let maxConcurrentStreams: Int
    /// Nanoseconds a connection has to complete its TLS handshake.
    let handshakeTimeout: UInt64
    /// Nanoseconds without a request after which a connection is sent GOAWAY; 0 = never.
    let idleTimeout: UInt64
    let scenario: ScenarioBook
    let stats: StatsBook
    /// The broadcast channels and their statistics.
    let channels: ChannelBook
    /// Where push requests' arrivals are written (`MockConfiguration.arrivalsFile`); nil when not asked for.
    let arrivals: ArrivalLog?

    init(configuration: MockConfiguration) throws {
        tls = try TLSServerContext(identity: configuration.identity, clientCAPEM: configuration.clientCAPEM)
        verifier = configuration.verifier
        teamsRestrictTopics = configuration.verifier.teams.contains { !$0.topics.isEmpty }
        environment = configuration.environment
        asksClientCertificates = configuration.clientCAPEM != nil
        tokenUpdateInterval = configuration.tokenUpdateInterval
        maxConcurrentStreams = configuration.scenario.connection.maxConcurrentStreams ?? 1000
        handshakeTimeout = UInt64(max(0.001, configuration.handshakeTimeout) * 1e9)
        idleTimeout = UInt64(max(0, configuration.idleTimeout) * 1e9)
        scenario = ScenarioBook(configuration.scenario)
        channels = ChannelBook(
            maxPerApp: max(1, configuration.maxChannelsPerApp), withoutBroadcast: configuration.withoutBroadcast,
            behaviours: configuration.scenario.broadcasts)
        stats = StatsBook(
            tracksTokens: configuration.tracksTokens || configuration.statsTokens,
            listsTokens: configuration.statsTokens, channels: channels)
        arrivals = try configuration.arrivalsFile.map(ArrivalLog.init(path:))
    }
}
