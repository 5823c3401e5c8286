import APNsMock
import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd send --channel` end to end: broadcasts enqueued, sent by the worker to `POST /4/broadcasts/apps/<bundle>`
/// through the in-process apns-mock (which checks the channel, push type, expiration and payload as APNs does),
/// retried, logged; every refusal before enqueue leaves the database as it was.
@Suite struct BroadcastCLITests {
    static let topic = ChannelCLITests.topic
    static let update = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":"2-1"}}}"#
    static let end =
        #"{"aps":{"event":"end","timestamp":1700000100,"content-state":{"score":"3-1"},"dismissal-date":1700003600}}"#

    /// The channel CLI's setup on a mock with `scenario` (fast retries).
    static func setup(_ scenario: Scenario = Scenario()) async throws -> ChannelSetup {
        var setup = try await ChannelSetup.make(scenario: scenario)
        setup.cli.environment.merge(["APNSD_RETRY_BASE": "0.05", "APNSD_RETRY_CAP": "0.2"]) { $1 }
        return setup
    }

    /// Creates a channel; returns its APNs id.
    static func channel(_ setup: ChannelSetup, storage: String, topic: String = topic) async throws -> String {
        let created = try ChannelCLITests.created(
            try await setup.cli.run("channel", "create", "--topic", topic, "--storage", storage, "--json"))
        return try #require(created["channelId"] as? String)
    }

    /// A broadcast enqueued: its campaign id.
    static func broadcast(_ setup: ChannelSetup, _ arguments: String...) async throws -> String {
        let result = try await setup.cli.run(["send"] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func updatesAndAnEndAreSentToEachChannelAndLogged() async throws {
        let setup = try await Self.setup()
        defer { setup.stop() }
        let latest = try await Self.channel(setup, storage: "latest")
        let none = try await Self.channel(setup, storage: "none")
        let later = String(Int(Date().timeIntervalSince1970) + 3600)
        let first = try await Self.broadcast(
            setup, "--channel", "1", "--payload", Self.update, "--expiration", later, "--priority", "5")
        _ = try await Self.broadcast(setup, "--channel", none, "--payload", Self.update, "--priority", "1")
        _ = try await Self.broadcast(
            setup, "--channel", "2", "--payload", Self.end, "--expiration", "0",
            "--apns-id", "7f4a1c1e-2b7a-4a0e-9f5e-3c2d1b0a9f8e")
        // Written as one delivery each, naming the channel, with the expiration a no-storage channel needs.
        #expect(
            try setup.rows(
                "SELECT c.channel_id, c.push_type, c.priority, COALESCE(c.expiration, '-'), d.channel_id, d.token, d.device_id IS NULL FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id ORDER BY c.id"
            ) == [
                "1|liveactivity|5|\(later)|1|\(latest)|1", "2|liveactivity|1|0|2|\(none)|1",
                "2|liveactivity|10|0|2|\(none)|1",
            ])
        let worker = try await setup.cli.run("worker", "--until-idle")
        #expect(worker.status == 0, "\(worker.stderr)")
        let stats = setup.server.stats()
        #expect(stats.broadcasts(channel: latest) == 1 && stats.broadcasts(channel: none) == 2, "\(stats.channels)")
        #expect(stats.channels.reasons.isEmpty && stats.channels.broadcastsAccepted == 3)
        #expect(
            try setup.rows("SELECT status, attempts, apns_id IS NOT NULL FROM deliveries ORDER BY id") == [
                "accepted|1|1", "accepted|1|1", "accepted|1|1",
            ])
        #expect(
            try setup.rows("SELECT apns_id FROM deliveries WHERE id = 3") == ["7f4a1c1e-2b7a-4a0e-9f5e-3c2d1b0a9f8e"],
            "a chosen id is sent as apns-request-id and echoed")
        // The log names the channel where a device's token would be.
        let log = try await setup.cli.run("log", "--campaign", first)
        #expect(
            log.status == 0 && log.stdout.contains("channel 1") && log.stdout.contains("accepted"),
            "\(log.stdout)\(log.stderr)")
        let json = try Fleet.json(
            try #require(try await setup.cli.run("log", "--campaign", first, "--json").lines.first))
        #expect(json["channel"] as? Int == 1 && json["token"] is NSNull, "\(json)")
        let text = try await setup.cli.run("campaign", "show", first)
        #expect(text.stdout.contains("audience     channel 1 production"), "\(text.stdout)")
        let shown = try await setup.cli.run("campaign", "show", first, "--json")
        #expect(
            try Fleet.json(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["channel"] as? Int == 1,
            "\(shown.stdout)")
    }

    @Test func everyInvalidBroadcastIsRefusedBeforeEnqueue() async throws {
        let setup = try await Self.setup()
        defer { setup.stop() }
        _ = try await Self.channel(setup, storage: "none")
        _ = try await Self.channel(setup, storage: "latest")
        _ = try await Self.channel(setup, storage: "latest", topic: ChannelCLITests.other)
        #expect(try await setup.cli.run("channel", "delete", "3").status == 0)
        let start =
            #"{"aps":{"event":"start","timestamp":1700000000,"content-state":{},"attributes-type":"Score","attributes":{},"alert":{"title":"t","body":"b"}}}"#
        let big =
            #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"x":""#
            + String(repeating: "a", count: 5100) + #""}}}"#
        let cases: [(String, [String], String)] = [
            (
                "an expiration on a no-storage channel",
                ["--channel", "1", "--payload", Self.update, "--expiration", "1900000000"], "must be 0"
            ),
            ("a start event", ["--channel", "2", "--payload", start], "updates or ends"),
            ("no event", ["--channel", "2", "--payload", #"{"aps":{"alert":"hi"}}"#], "aps.event"),
            ("an unknown channel", ["--channel", "99", "--payload", Self.update], "no channel 99"),
            ("a deleted channel", ["--channel", "3", "--payload", Self.update], "was deleted"),
            (
                "another app's topic", ["--channel", "2", "--topic", ChannelCLITests.other, "--payload", Self.update],
                "belongs to"
            ),
            ("a collapse id", ["--channel", "2", "--collapse-id", "c", "--payload", Self.update], "collapse id"),
            (
                "another push type", ["--channel", "2", "--push-type", "alert", "--payload", Self.update],
                "push type liveactivity"
            ),
            (
                "another environment", ["--channel", "2", "--environment", "development", "--payload", Self.update],
                "belongs to production"
            ),
            ("a bad priority", ["--channel", "2", "--priority", "7", "--payload", Self.update], "priority"),
            ("more than 5120 bytes", ["--channel", "2", "--payload", big], "5120"),
            ("a channel and a user", ["--channel", "2", "--user", "u1", "--payload", Self.update], "give one"),
            (
                "a channel and a token",
                ["--channel", "2", String(repeating: "ab", count: 32), "--payload", Self.update], "argument"
            ),
        ]
        for (name, arguments, message) in cases {
            let result = try await setup.cli.run(["send"] + arguments)
            let lines = result.stderr.split(separator: "\n")
            #expect(
                result.status == 64 && lines.count == 1 && result.stderr.contains(message),
                "\(name): exit \(result.status) \(result.stderr)")
        }
        #expect(try setup.rows("SELECT COUNT(*) FROM campaigns") == ["0"])
        #expect(try setup.rows("SELECT COUNT(*) FROM deliveries") == ["0"])
        // At exactly 5120 bytes it is accepted (a device's Live Activity push stops at 4096).
        let fits =
            #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"x":""#
            + String(repeating: "a", count: 5120 - 74) + #""}}}"#
        #expect(fits.utf8.count == 5120)
        _ = try await Self.broadcast(setup, "--channel", "2", "--payload", fits)
        #expect(try setup.rows("SELECT COUNT(*) FROM deliveries") == ["1"])
    }

    @Test func busyAnswersAreRetriedAndRefusalsRecorded() async throws {
        // TooManyRequests twice on each channel of the app, then accepted; the other app's: 503 once.
        var setup = try await Self.setup(
            Scenario(broadcasts: [
                Self.topic: BroadcastBehaviour(failTimes: 2, failStatus: 429),
                ChannelCLITests.other: BroadcastBehaviour(failTimes: 1, failStatus: 503),
            ]))
        defer { setup.stop() }
        let busy = try await Self.channel(setup, storage: "latest")
        _ = try await Self.channel(setup, storage: "latest")
        let down = try await Self.channel(setup, storage: "none", topic: ChannelCLITests.other)
        _ = try await Self.broadcast(setup, "--channel", "1", "--payload", Self.update)
        _ = try await Self.broadcast(setup, "--channel", "3", "--payload", Self.update)
        let worker = try await setup.cli.run("worker", "--until-idle")
        #expect(worker.status == 0, "\(worker.stderr)")
        let stats = setup.server.stats()
        #expect(
            stats.broadcasts(channel: busy) == 1 && stats.channels.reasons["TooManyRequests"] == 2, "\(stats.channels)")
        #expect(
            stats.broadcasts(channel: down) == 1 && stats.channels.reasons["ServiceUnavailable"] == 1,
            "\(stats.channels)")
        #expect(
            try setup.rows("SELECT status, attempts FROM deliveries ORDER BY id") == ["accepted|3", "accepted|2"],
            "expiration 0 (a none channel) is retried all the same")
        let answers = try await setup.cli.run("log", "--campaign", "1", "--attempts", "--json")
        #expect(answers.stdout.contains("TooManyRequests"), "\(answers.stdout)")
        // An APNs that no longer knows channel 2 (a fresh mock, as after the app's Broadcast capability was switched
        // off): 400 ChannelNotRegistered, recorded as rejected, not retried.
        setup.server.stop()
        setup.use(try ChannelSetup.mock(setup.identity))
        _ = try await Self.broadcast(setup, "--channel", "2", "--payload", Self.update)
        #expect(try await setup.cli.run("worker", "--until-idle").status == 0)
        #expect(
            try setup.rows("SELECT status, attempts, http_status, COALESCE(reason, '-') FROM deliveries ORDER BY id")
                == [
                    "accepted|3|200|-", "accepted|2|200|-", "rejected|1|400|ChannelNotRegistered",
                ])
        #expect(setup.server.stats().channels.reasons == ["ChannelNotRegistered": 1])
        // The app's Broadcast capability switched off: 400 FeatureNotEnabled, rejected.
        setup.server.stop()
        setup.use(try ChannelSetup.mock(setup.identity, withoutBroadcast: [Self.topic]))
        _ = try await Self.broadcast(setup, "--channel", "1", "--payload", Self.end)
        #expect(try await setup.cli.run("worker", "--until-idle").status == 0)
        #expect(
            try setup.rows("SELECT status, attempts, http_status, reason FROM deliveries WHERE id = 4") == [
                "rejected|1|400|FeatureNotEnabled"
            ])
    }
}
