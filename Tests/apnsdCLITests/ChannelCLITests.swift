import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// `apnsd channel create | list | show | delete` end to end against the in-process apns-mock's channel management:
/// each storage policy, the local table, each APNs refusal that can reach the CLI (one line with Apple's reason,
/// exit 1, nothing written), and a suffixed bundle id refused before anything is sent.
@Suite(.offThePool) struct ChannelCLITests {
    static let topic = "com.example.scores"
    static let other = "com.example.other"

    /// The CLI (single key, the mock as both push and channel management host) and the mock.
    struct Setup {
        var cli: CLI
        var server: MockServer
        let identity: TLSIdentity

        func stop() {
            server.stop()
            cli.cleanUp()
        }

        /// Points apnsd at `server` (push and channel management URLs alike: the mock serves both).
        mutating func use(_ server: MockServer) {
            self.server = server
            let url = "https://127.0.0.1:\(server.port)"
            cli.environment.merge([
                "APNSD_PRODUCTION_URL": url, "APNSD_DEVELOPMENT_URL": url,
                "APNSD_CHANNEL_PRODUCTION_URL": url, "APNSD_CHANNEL_DEVELOPMENT_URL": url,
            ]) { $1 }
        }

        /// `SELECT` through the sqlite3 shell.
        func rows(_ sql: String) throws -> [String] { try APIHarness.query(cli.database, sql) }
    }

    static func mock(
        _ identity: TLSIdentity, scenario: Scenario = Scenario(), withoutBroadcast: Set<String> = [],
        maxChannels: Int = 10_000
    ) throws -> MockServer {
        let key = try SigningKey(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8"))
        // The team sends for the two apps only: any other bundle id is TopicDisallowed.
        let team = MockTeam(
            key: key, credential: try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01"),
            topics: [topic, other])
        return try MockServer(
            configuration: MockConfiguration(
                identity: identity, verifier: JWTVerifier(teams: [team]), scenario: scenario,
                withoutBroadcast: withoutBroadcast, maxChannelsPerApp: maxChannels))
    }

    static func setup(scenario: Scenario = Scenario(), withoutBroadcast: Set<String> = [], maxChannels: Int = 10_000)
        throws -> Setup
    {
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
        var setup = Setup(
            cli: cli,
            server: try mock(
                identity, scenario: scenario, withoutBroadcast: withoutBroadcast, maxChannels: maxChannels),
            identity: identity)
        setup.use(setup.server)
        try #require(setup.cli.run("init").status == 0)
        return setup
    }

    static func created(_ result: CLI.Result) throws -> [String: Any] {
        try #require(result.status == 0, "\(result.stderr)")
        return try Fleet.json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Exit 1 and one line naming `reason`; nothing on stdout.
    static func expectRefused(_ result: CLI.Result, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation)
    {
        let lines = result.stderr.split(separator: "\n")
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            lines.count == 1 && lines.first?.hasPrefix("apnsd: error: ") == true
                && lines.first?.contains(reason) == true,
            "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func createWithEachPolicyListShowAndDelete() throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        let cli = setup.cli
        let latest = try Self.created(try cli.run("channel", "create", "--topic", Self.topic, "--json"))
        let none = try Self.created(
            try cli.run("channel", "create", "--topic", Self.topic, "--storage", "none", "--json"))
        let development = try Self.created(
            try cli.run(
                "channel", "create", "--topic", Self.other, "--storage", "latest",
                "--environment", "development", "--json"))
        #expect(
            latest["storage"] as? String == "latest" && latest["messageStoragePolicy"] as? Int == 1,
            "latest is the default")
        #expect(none["storage"] as? String == "none" && none["messageStoragePolicy"] as? Int == 0)
        #expect(
            latest["environment"] as? String == "production" && development["environment"] as? String == "development")
        #expect(latest["credential"] as? String == "default" && latest["deletedAt"] is NSNull)
        let ids = [latest, none, development].map { $0["channelId"] as! String }
        // The mock holds each channel with the policy asked for.
        let stats = setup.server.stats().channels
        #expect(stats.created == 3 && stats.requests["create"] == 3)
        #expect(ids.map { stats.byID[$0]?.messageStoragePolicy } == [1, 0, 1])
        #expect(ids.map { stats.byID[$0]?.bundleID } == [Self.topic, Self.topic, Self.other])
        #expect(
            try setup.rows("SELECT id, channel_id, topic, environment, storage FROM channels ORDER BY id") == [
                "1|\(ids[0])|\(Self.topic)|production|1", "2|\(ids[1])|\(Self.topic)|production|0",
                "3|\(ids[2])|\(Self.other)|development|1",
            ])

        // list: the local table, aligned, or JSON Lines.
        let listed = try cli.run("channel", "list")
        #expect(listed.status == 0 && listed.lines.count == 4, "\(listed.stdout)")
        #expect(listed.lines[0].hasPrefix("ID      CHANNEL ID"))
        #expect(
            listed.lines[2].hasPrefix("2       \(ids[1])") && listed.lines[2].contains(" none "), "\(listed.stdout)")
        let json = try cli.run("channel", "list", "--json")
        #expect(try json.lines.map { try Fleet.json($0)["channelId"] as? String } == ids)

        // show: by local number or APNs id, with the policy APNs reads.
        let shown = try cli.run("channel", "show", "2")
        #expect(
            shown.status == 0 && shown.stdout.contains("at APNs      exists, storage none"),
            "\(shown.stdout)\(shown.stderr)")
        let shownJSON = try Self.created(try cli.run("channel", "show", ids[2], "--json"))
        #expect(shownJSON["id"] as? String == "3" && shownJSON["apnsStorage"] as? String == "latest")
        #expect(setup.server.stats().channels.requests["read"] == 2)

        // delete: at APNs, then the row is marked and kept.
        let deleted = try cli.run("channel", "delete", ids[0])
        #expect(deleted.status == 0 && deleted.stdout.contains("deleted channel 1: \(ids[0])"), "\(deleted.stderr)")
        #expect(setup.server.stats().channels.byID[ids[0]]?.deleted == true)
        #expect(try setup.rows("SELECT id FROM channels WHERE deleted_at IS NOT NULL") == ["1"])
        #expect(try cli.run("channel", "list", "--json").lines.count == 2, "a deleted channel is left out")
        #expect(try cli.run("channel", "list", "--deleted", "--json").lines.count == 3, "but kept")
        let again = try cli.run("channel", "delete", "1")
        #expect(again.status == 1 && again.stderr.contains("already deleted"), "\(again.stderr)")
        let shownDeleted = try cli.run("channel", "show", "1")
        #expect(shownDeleted.status == 0 && shownDeleted.stdout.contains("deleted (not asked)"))
        #expect(
            setup.server.stats().channels.requests["delete"] == 1
                && setup.server.stats().channels.requests["read"] == 2,
            "neither a second delete nor a read of a deleted channel reaches APNs")
        let unknown = try cli.run("channel", "show", "42")
        #expect(unknown.status == 1 && unknown.stderr.contains("no channel 42"), "\(unknown.stderr)")
    }

    /// `list --topic` compares with APNs's all-channels: a channel only the mock has, one only the table has.
    @Test func listWithATopicComparesWithAPNs() throws {
        var setup = try Self.setup()
        defer { setup.stop() }
        let first =
            try Self.created(try setup.cli.run("channel", "create", "--topic", Self.topic, "--json"))["channelId"]
            as! String
        // Another database creates a channel on the same app: APNs knows it, this table does not.
        var stranger = setup.cli
        stranger.environment["APNSD_DATABASE"] = setup.cli.directory.appendingPathComponent("other.sqlite").path
        try #require(stranger.run("init").status == 0)
        let foreign =
            try Self.created(try stranger.run("channel", "create", "--topic", Self.topic, "--json"))["channelId"]
            as! String
        try #require(stranger.run("channel", "delete", foreign).status == 0)
        let foreign2 =
            try Self.created(try stranger.run("channel", "create", "--topic", Self.topic, "--json"))["channelId"]
            as! String

        let compared = try setup.cli.run("channel", "list", "--topic", Self.topic, "--json")
        #expect(compared.status == 0, "\(compared.stderr)")
        let lines = try compared.lines.map(Fleet.json)
        #expect(lines.count == 2)
        #expect(lines[0]["channelId"] as? String == first && lines[0]["atAPNs"] as? Bool == true)
        #expect(
            lines[1]["channelId"] as? String == foreign2 && lines[1]["id"] is NSNull
                && lines[1]["atAPNs"] as? Bool == true)
        let table = try setup.cli.run("channel", "list", "--topic", Self.topic)
        #expect(
            table.lines.last?.hasSuffix("not recorded") == true && table.lines[1].hasSuffix("yes"), "\(table.stdout)")

        // A fresh simulator has forgotten every channel: the recorded one is "missing" there.
        setup.server.stop()
        setup.use(try Self.mock(setup.identity))
        let missing = try setup.cli.run("channel", "list", "--topic", Self.topic, "--json")
        #expect(
            try missing.lines.map(Fleet.json).map { $0["atAPNs"] as? Bool } == [false],
            "\(missing.stdout)\(missing.stderr)")
        // …and reading or deleting it is APNs's ChannelNotRegistered, the row unchanged.
        Self.expectRefused(try setup.cli.run("channel", "show", "1"), "400 ChannelNotRegistered")
        Self.expectRefused(try setup.cli.run("channel", "delete", "1"), "400 ChannelNotRegistered")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels WHERE deleted_at IS NULL") == ["1"], "not marked deleted")
    }

    /// Every refusal of a create that can reach the CLI: one line with Apple's reason, exit 1, nothing recorded.
    @Test func apnsRefusalsAreOneLineAndWriteNothing() throws {
        var setup = try Self.setup(withoutBroadcast: [Self.other], maxChannels: 1)
        defer { setup.stop() }
        try #require(setup.cli.run("channel", "create", "--topic", Self.topic).status == 0)
        Self.expectRefused(
            try setup.cli.run("channel", "create", "--topic", Self.topic), "400 CannotCreateChannelConfig")
        Self.expectRefused(try setup.cli.run("channel", "create", "--topic", Self.other), "400 FeatureNotEnabled")
        Self.expectRefused(
            try setup.cli.run("channel", "create", "--topic", "com.example.notours"), "400 TopicDisallowed")
        Self.expectRefused(
            try setup.cli.run("channel", "create", "--topic", Self.topic, "--key-id", "WRONGKEY01"),
            "403 InvalidProviderToken")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["1"])
        // No answer at all: the same one line, nothing recorded.
        let port = setup.server.port
        setup.server.stop()
        let unreachable = try setup.cli.run(
            "channel", "create", "--topic", Self.topic,
            environment: ["APNSD_CHANNEL_PRODUCTION_URL": "https://127.0.0.1:\(port)"])
        Self.expectRefused(unreachable, "did not reach APNs")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["1"])
        setup.use(try Self.mock(setup.identity))
        // The JWT is never printed, whatever the failure.
        #expect(!unreachable.stderr.contains("eyJ"))
    }

    /// Channel management follows apns.proxy as pushes do: the environment's proxy is ignored unless asked for.
    @Test func channelManagementFollowsTheProxySetting() throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        let dead = ["https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"]
        let direct = try setup.cli.run(["channel", "create", "--topic", Self.topic], environment: dead)
        #expect(direct.status == 0, "the environment's proxy is not used: \(direct.stderr)")
        let proxied = try setup.cli.run(["channel", "create", "--topic", Self.topic, "--proxy", "http://127.0.0.1:9"])
        Self.expectRefused(proxied, "did not reach APNs")
        #expect(proxied.stderr.contains("port 9"), "\(proxied.stderr)")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["1"])
    }

    /// Refused before anything is sent (exit 64): a suffixed bundle id, an unknown policy or environment.
    @Test func badInputIsRefusedBeforeAPNs() throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        for (arguments, says) in [
            (["--topic", Self.topic + ".push-type.liveactivity"], "has a .push-type. suffix"),
            (
                ["--topic", Self.topic, "--storage", "sometimes"],
                "--storage: storage 'sometimes' is not none or latest"
            ),
            (["--topic", Self.topic, "--environment", "staging"], "--environment: unknown environment 'staging'"),
            (["--topic", "not a bundle"], "--topic: invalid topic"),
        ] {
            let result = try setup.cli.run(["channel", "create"] + arguments)
            #expect(
                result.status == 64 && result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(says),
                "\(arguments): \(result.stderr)")
        }
        let listed = try setup.cli.run("channel", "list", "--topic", Self.topic + ".push-type.liveactivity")
        #expect(listed.status == 64 && listed.stderr.contains(".push-type. suffix"))
        #expect(setup.server.stats().channels.requests.values.reduce(0, +) == 0, "nothing reached the mock")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["0"])
    }
}

extension SeveralTeamsTests {
    /// Channels of each app go out with the app's credential, and so do broadcasts on them: a second team's key,
    /// and a certificate credential's client certificate (no JWT).
    @Test func channelsUseTheCredentialThatSendsTheirApp() throws {
        var setup = try Self.setup()
        defer { setup.cli.cleanUp() }
        let server = try Self.mock(setup, teams: [setup.teamA, setup.teamB])
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)"
        setup.cli.environment.merge(["APNSD_CHANNEL_PRODUCTION_URL": url, "APNSD_PRODUCTION_URL": url]) { $1 }
        try #require(setup.cli.run("init").status == 0)
        var ids: [String] = []
        for (topic, credential) in [(Self.shop, "shop"), (Self.rides, "rides"), (Self.legacy, "legacy")] {
            let created = try setup.cli.run("channel", "create", "--topic", topic, "--json")
            #expect(created.status == 0, "\(topic): \(created.stderr)")
            let channel = try Fleet.json(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(channel["credential"] as? String == credential)
            let id = try #require(channel["channelId"] as? String)
            #expect(server.stats().channels.byID[id]?.bundleID == topic)
            let sent = try setup.cli.run("send", "--channel", id, "--payload", BroadcastCLITests.update)
            #expect(sent.status == 0, "\(topic): \(sent.stderr)")
            ids.append(id)
        }
        let worker = try setup.cli.run("worker", "--until-idle")
        #expect(worker.status == 0, "\(worker.stderr.suffix(1500))")
        #expect(ids.map { server.stats().broadcasts(channel: $0) } == [1, 1, 1], "\(server.stats().channels)")
        for id in ids {
            #expect(try setup.cli.run("channel", "show", id).status == 0)
            #expect(try setup.cli.run("channel", "delete", id).status == 0)
        }
        #expect(server.stats().channels.deleted == 3)
        let unknown = try setup.cli.run("channel", "create", "--topic", "com.nobody.app")
        #expect(unknown.status == 64 && unknown.stderr.contains("no credential sends for topic"), "\(unknown.stderr)")
    }
}
