import APNsMock
import CLITestSupport
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// `apnsd channel create | list | show | delete` end to end against the in-process apns-mock's channel management:
/// each storage policy, the local table, each APNs refusal that can reach the CLI (one line with Apple's reason,
/// exit 1, nothing written), and a suffixed bundle id refused before anything is sent.
@Suite struct ChannelCLITests {
    static let topic = ChannelSetup.topic
    static let other = ChannelSetup.other

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

    @Test func createWithEachPolicyListShowAndDelete() async throws {
        let setup = try await ChannelSetup.make()
        defer { setup.stop() }
        let cli = setup.cli
        let latest = try Self.created(try await cli.run("channel", "create", "--topic", Self.topic, "--json"))
        let none = try Self.created(
            try await cli.run("channel", "create", "--topic", Self.topic, "--storage", "none", "--json"))
        let development = try Self.created(
            try await cli.run(
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
        let listed = try await cli.run("channel", "list")
        #expect(listed.status == 0 && listed.lines.count == 4, "\(listed.stdout)")
        #expect(listed.lines[0].hasPrefix("ID      CHANNEL ID"))
        #expect(
            listed.lines[2].hasPrefix("2       \(ids[1])") && listed.lines[2].contains(" none "), "\(listed.stdout)")
        let json = try await cli.run("channel", "list", "--json")
        #expect(try json.lines.map { try Fleet.json($0)["channelId"] as? String } == ids)

        // show: by local number or APNs id, with the policy APNs reads.
        let shown = try await cli.run("channel", "show", "2")
        #expect(
            shown.status == 0 && shown.stdout.contains("at APNs      exists, storage none"),
            "\(shown.stdout)\(shown.stderr)")
        let shownJSON = try Self.created(try await cli.run("channel", "show", ids[2], "--json"))
        #expect(shownJSON["id"] as? String == "3" && shownJSON["apnsStorage"] as? String == "latest")
        #expect(setup.server.stats().channels.requests["read"] == 2)

        // delete: at APNs, then the row is marked and kept.
        let deleted = try await cli.run("channel", "delete", ids[0])
        #expect(deleted.status == 0 && deleted.stdout.contains("deleted channel 1: \(ids[0])"), "\(deleted.stderr)")
        #expect(setup.server.stats().channels.byID[ids[0]]?.deleted == true)
        #expect(try setup.rows("SELECT id FROM channels WHERE deleted_at IS NOT NULL") == ["1"])
        #expect(try await cli.run("channel", "list", "--json").lines.count == 2, "a deleted channel is left out")
        #expect(try await cli.run("channel", "list", "--deleted", "--json").lines.count == 3, "but kept")
        let again = try await cli.run("channel", "delete", "1")
        #expect(again.status == 1 && again.stderr.contains("already deleted"), "\(again.stderr)")
        let shownDeleted = try await cli.run("channel", "show", "1")
        #expect(shownDeleted.status == 0 && shownDeleted.stdout.contains("deleted (not asked)"))
        #expect(
            setup.server.stats().channels.requests["delete"] == 1
                && setup.server.stats().channels.requests["read"] == 2,
            "neither a second delete nor a read of a deleted channel reaches APNs")
        let unknown = try await cli.run("channel", "show", "42")
        #expect(unknown.status == 1 && unknown.stderr.contains("no channel 42"), "\(unknown.stderr)")
    }

    /// `list --topic` compares with APNs's all-channels: a channel only the mock has, one only the table has.
    @Test func listWithATopicComparesWithAPNs() async throws {
        var setup = try await ChannelSetup.make()
        defer { setup.stop() }
        let first =
            try Self.created(try await setup.cli.run("channel", "create", "--topic", Self.topic, "--json"))["channelId"]
            as! String
        // Another database creates a channel on the same app: APNs knows it, this table does not.
        var stranger = setup.cli
        stranger.environment["APNSD_DATABASE"] = setup.cli.directory.appendingPathComponent("other.sqlite").path
        try #require(await stranger.run("init").status == 0)
        let foreign =
            try Self.created(try await stranger.run("channel", "create", "--topic", Self.topic, "--json"))["channelId"]
            as! String
        try #require(await stranger.run("channel", "delete", foreign).status == 0)
        let foreign2 =
            try Self.created(try await stranger.run("channel", "create", "--topic", Self.topic, "--json"))["channelId"]
            as! String

        let compared = try await setup.cli.run("channel", "list", "--topic", Self.topic, "--json")
        #expect(compared.status == 0, "\(compared.stderr)")
        let lines = try compared.lines.map(Fleet.json)
        #expect(lines.count == 2)
        #expect(lines[0]["channelId"] as? String == first && lines[0]["atAPNs"] as? Bool == true)
        #expect(
            lines[1]["channelId"] as? String == foreign2 && lines[1]["id"] is NSNull
                && lines[1]["atAPNs"] as? Bool == true)
        let table = try await setup.cli.run("channel", "list", "--topic", Self.topic)
        #expect(
            table.lines.last?.hasSuffix("not recorded") == true && table.lines[1].hasSuffix("yes"), "\(table.stdout)")

        // A fresh simulator has forgotten every channel: the recorded one is "missing" there.
        setup.server.stop()
        setup.use(try ChannelSetup.mock(setup.identity))
        let missing = try await setup.cli.run("channel", "list", "--topic", Self.topic, "--json")
        #expect(
            try missing.lines.map(Fleet.json).map { $0["atAPNs"] as? Bool } == [false],
            "\(missing.stdout)\(missing.stderr)")
        // …and reading or deleting it is APNs's ChannelNotRegistered, the row unchanged.
        Self.expectRefused(try await setup.cli.run("channel", "show", "1"), "400 ChannelNotRegistered")
        Self.expectRefused(try await setup.cli.run("channel", "delete", "1"), "400 ChannelNotRegistered")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels WHERE deleted_at IS NULL") == ["1"], "not marked deleted")
    }

    /// Every refusal of a create that can reach the CLI: one line with Apple's reason, exit 1, nothing recorded.
    @Test func apnsRefusalsAreOneLineAndWriteNothing() async throws {
        var setup = try await ChannelSetup.make(withoutBroadcast: [Self.other], maxChannels: 1)
        defer { setup.stop() }
        try #require(await setup.cli.run("channel", "create", "--topic", Self.topic).status == 0)
        Self.expectRefused(
            try await setup.cli.run("channel", "create", "--topic", Self.topic), "400 CannotCreateChannelConfig")
        Self.expectRefused(try await setup.cli.run("channel", "create", "--topic", Self.other), "400 FeatureNotEnabled")
        Self.expectRefused(
            try await setup.cli.run("channel", "create", "--topic", "com.example.notours"), "400 TopicDisallowed")
        Self.expectRefused(
            try await setup.cli.run("channel", "create", "--topic", Self.topic, "--key-id", "WRONGKEY01"),
            "403 InvalidProviderToken")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["1"])
        // No answer at all: the same one line, nothing recorded.
        let port = setup.server.port
        setup.server.stop()
        let unreachable = try await setup.cli.run(
            "channel", "create", "--topic", Self.topic,
            environment: ["APNSD_CHANNEL_PRODUCTION_URL": "https://127.0.0.1:\(port)"])
        Self.expectRefused(unreachable, "did not reach APNs")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["1"])
        setup.use(try ChannelSetup.mock(setup.identity))
        // The JWT is never printed, whatever the failure.
        #expect(!unreachable.stderr.contains("eyJ"))
    }

    /// Channel management follows apns.proxy as pushes do: the environment's proxy is ignored unless asked for.
    @Test func channelManagementFollowsTheProxySetting() async throws {
        let setup = try await ChannelSetup.make()
        defer { setup.stop() }
        let dead = ["https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"]
        let direct = try await setup.cli.run(["channel", "create", "--topic", Self.topic], environment: dead)
        #expect(direct.status == 0, "the environment's proxy is not used: \(direct.stderr)")
        let proxied = try await setup.cli.run([
            "channel", "create", "--topic", Self.topic, "--proxy", "http://127.0.0.1:9",
        ])
        Self.expectRefused(proxied, "did not reach APNs")
        #expect(proxied.stderr.contains("port 9"), "\(proxied.stderr)")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["1"])
    }

    /// Refused before anything is sent (exit 64): a suffixed bundle id, an unknown policy or environment.
    @Test func badInputIsRefusedBeforeAPNs() async throws {
        let setup = try await ChannelSetup.make()
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
            let result = try await setup.cli.run(["channel", "create"] + arguments)
            #expect(
                result.status == 64 && result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(says),
                "\(arguments): \(result.stderr)")
        }
        let listed = try await setup.cli.run("channel", "list", "--topic", Self.topic + ".push-type.liveactivity")
        #expect(listed.status == 64 && listed.stderr.contains(".push-type. suffix"))
        #expect(setup.server.stats().channels.requests.values.reduce(0, +) == 0, "nothing reached the mock")
        #expect(try setup.rows("SELECT COUNT(*) FROM channels") == ["0"])
    }
}
