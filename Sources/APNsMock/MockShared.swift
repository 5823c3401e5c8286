import Foundation

/// What every event loop of one simulator shares: configuration, the scenario and the stats ledger.
final class MockShared: Sendable {
    let tls: TLSServerContext
    let verifier: JWTVerifier
    let tokenUpdateInterval: TimeInterval
    let maxConcurrentStreams: Int
    let scenario: ScenarioBook
    let stats: StatsBook

    init(configuration: MockConfiguration) throws {
        tls = try TLSServerContext(identity: configuration.identity)
        verifier = configuration.verifier
        tokenUpdateInterval = configuration.tokenUpdateInterval
        maxConcurrentStreams = configuration.scenario.connection.maxConcurrentStreams ?? 1000
        scenario = ScenarioBook(configuration.scenario)
        stats = StatsBook(tracksTokens: configuration.tracksTokens)
    }
}
