import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// The command line with one key, pointed at an apns-mock that serves both push and broadcast channel management,
/// with a fresh database: what the channel and broadcast tests start from.
public struct ChannelSetup {
    /// The app whose channels the tests create.
    public static let topic = "com.example.scores"
    /// A second app of the same team.
    public static let other = "com.example.other"

    public var cli: CLI
    public var server: MockServer
    public let identity: TLSIdentity

    public func stop() {
        server.stop()
        cli.cleanUp()
    }

    /// Points apnsd at `server` (push and channel management URLs alike: the mock serves both).
    public mutating func use(_ server: MockServer) {
        self.server = server
        let url = "https://127.0.0.1:\(server.port)"
        cli.environment.merge([
            "APNSD_PRODUCTION_URL": url, "APNSD_DEVELOPMENT_URL": url,
            "APNSD_CHANNEL_PRODUCTION_URL": url, "APNSD_CHANNEL_DEVELOPMENT_URL": url,
        ]) { $1 }
    }

    /// `SELECT` through the sqlite3 shell.
    public func rows(_ sql: String) throws -> [String] { try SQLiteQuery.query(cli.database, sql) }

    /// A mock whose one team sends for `topic` and `other` only (any other bundle id is TopicDisallowed).
    public static func mock(
        _ identity: TLSIdentity, scenario: Scenario = Scenario(), withoutBroadcast: Set<String> = [],
        maxChannels: Int = 10_000
    ) throws -> MockServer {
        let key = try SigningKey(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8"))
        let team = MockTeam(
            key: key, credential: try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01"),
            topics: [topic, other])
        return try MockServer(
            configuration: MockConfiguration(
                identity: identity, verifier: JWTVerifier(teams: [team]), scenario: scenario,
                withoutBroadcast: withoutBroadcast, maxChannelsPerApp: maxChannels))
    }

    /// A fresh scratch folder, its mock, and `apnsd init`.
    public static func make(
        scenario: Scenario = Scenario(), withoutBroadcast: Set<String> = [], maxChannels: Int = 10_000
    ) async throws -> ChannelSetup {
        var cli = try CLI()
        let identity = try TLSIdentity.throwaway()
        let ca = try cli.write("ca.pem", identity.caCertificatePEM!)
        // A private copy of the key: a world-readable one is warned about on stderr.
        let key = try cli.write(
            "AuthKey_TESTKEY001.p8",
            try String(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8"), encoding: .utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        cli.environment.merge([
            "APNSD_KEY_FILE": key, "APNSD_KEY_ID": "TESTKEY001", "APNSD_TEAM_ID": "TESTTEAM01",
            "APNSD_CA_FILE": ca, "APNSD_REQUEST_TIMEOUT": "10",
        ]) { $1 }
        var setup = ChannelSetup(
            cli: cli,
            server: try mock(
                identity, scenario: scenario, withoutBroadcast: withoutBroadcast, maxChannels: maxChannels),
            identity: identity)
        setup.use(setup.server)
        try #require(await setup.cli.run("init").status == 0)
        return setup
    }
}
