import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `device add --kind K --activity-type T`, `device list` with kinds, and `campaign create --activity-type T`.
@Suite struct LiveActivityCommandTests {
    static let topic = "com.example.live"
    static let update = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"eta":5}}}"#

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func devicesAreAddedAndListedWithTheirKinds() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        #expect(try await cli.run("device", "add", Tokens.hex(1), "--topic", Self.topic, "--user", "u1").status == 0)
        let added = try await cli.run(
            "device", "add", Tokens.hex(2), "--topic", Self.topic, "--kind", "activity",
            "--activity-type", "DeliveryAttributes", "--user", "u1")
        #expect(added.status == 0)
        #expect(
            added.stdout
                == "registered \(Tokens.hex(2)) for \(Self.topic) (production, activity of DeliveryAttributes)\n")
        // The Live Activity topic is accepted and stored as the bundle id.
        #expect(
            try await cli.run(
                "device", "add", Tokens.hex(3), "--topic", Self.topic + ".push-type.liveactivity", "--kind",
                "pushToStart",
                "--activity-type", "DeliveryAttributes"
            ).status == 0)

        let devices = try await cli.run("device", "list", "--json").lines.map(json)
        #expect(devices.map { $0["kind"] as? String } == ["device", "activity", "pushToStart"])
        #expect(devices[0]["activityType"] is NSNull)
        #expect(devices[1]["activityType"] as? String == "DeliveryAttributes")
        #expect(devices.allSatisfy { $0["topic"] as? String == Self.topic })
        let activities = try await cli.run("device", "list", "--kind", "activity", "--json").lines.map(json)
        #expect(activities.map { $0["token"] as? String } == [Tokens.hex(2)])
        #expect(try await cli.run("device", "list", "--kind", "device", "--user", "u1", "--json").lines.count == 1)

        let table = try await cli.run("device", "list").lines
        #expect(table.count == 4)
        let header = table[0]
        for heading in ["KIND", "ACTIVITY", "USER", "REGISTERED"] {
            let column = try #require(header.range(of: heading)).lowerBound.utf16Offset(in: header)
            for line in table.dropFirst() {
                let start = line.utf16.index(line.startIndex, offsetBy: column)
                #expect(
                    line[line.index(before: start)] == " " && line[start] != " ", "\(heading) out of line in: \(line)")
            }
        }
        #expect(table[2].contains(" activity ") && table[2].contains(" DeliveryAttributes "))
        #expect(table[1].contains(" device ") && table[3].contains(" pushToStart "))

        // Registering again with another kind updates the same device.
        #expect(
            try await cli.run(
                "device", "add", Tokens.hex(2), "--topic", Self.topic, "--kind", "pushToStart",
                "--activity-type", "RideAttributes"
            ).status == 0)
        let again = try await cli.run("device", "list", "--json").lines.map(json)
        #expect(again.count == 3)
        #expect(again[1]["kind"] as? String == "pushToStart" && again[1]["activityType"] as? String == "RideAttributes")
        #expect(again[1]["user"] as? String == "u1")
    }

    @Test func aFileOfPushToStartTokensIsImported() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let lines = [Tokens.hex(1) + ",alice", Tokens.hex(2) + ",bob,development"].joined(separator: "\n")
        let refused = try await cli.run(
            ["device", "import", "-", "--topic", Self.topic, "--kind", "pushToStart"], stdin: lines)
        #expect(refused.status == 64 && refused.stderr.contains("needs an activity type"), "\(refused.stderr)")
        #expect(try await cli.run("device", "list", "--json").lines.isEmpty)
        let imported = try await cli.run(
            [
                "device", "import", "-", "--topic", Self.topic, "--kind", "pushToStart",
                "--activity-type", "DeliveryAttributes",
            ], stdin: lines)
        #expect(imported.status == 0, "\(imported.stderr)")
        let devices = try await cli.run("device", "list", "--json").lines.map(json)
        #expect(devices.map { $0["kind"] as? String } == ["pushToStart", "pushToStart"])
        #expect(devices.allSatisfy { $0["activityType"] as? String == "DeliveryAttributes" })
        #expect(devices.map { $0["user"] as? String } == ["alice", "bob"])
    }

    @Test func badKindsAreOneLineUsageErrorsThatChangeNothing() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let cases: [([String], String)] = [
            (["--kind", "widget"], "--kind must be device, activity or pushToStart, got 'widget'"),
            (["--kind", "activity"], "needs an activity type"),
            (["--kind", "pushToStart"], "needs an activity type"),
            (["--activity-type", "DeliveryAttributes"], "not with kind device"),
            (["--kind", "device", "--activity-type", "DeliveryAttributes"], "not with kind device"),
            (["--kind", "activity", "--activity-type", "Delivery Attributes"], "is not a type name"),
            (["--kind", "activity", "--activity-type", ""], "empty"),
        ]
        for (extra, message) in cases {
            let result = try await cli.run(["device", "add", Tokens.hex(1), "--topic", Self.topic] + extra)
            #expect(result.status == 64, "\(extra)")
            #expect(result.stderr.contains(message), "\(extra): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(extra): \(result.stderr)")
        }
        let list = try await cli.run("device", "list", "--kind", "nope")
        #expect(list.status == 64 && list.stderr.contains("--kind must be"))
        #expect(try await cli.run("device", "list", "--json").lines.isEmpty)
    }

    @Test func campaignsGoToTheActivitiesOfATypeAndShowIt() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let created = try await cli.run(
            "campaign", "create", "--activity-type", "DeliveryAttributes", "--user", "u1", "--user", "u2",
            "--push-type", "liveactivity", "--topic", Self.topic, "--payload", Self.update)
        #expect(created.status == 0, "\(created.stderr)")
        let id = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try json(try await cli.run("campaign", "show", id, "--json").stdout)
        #expect(shown["audience"] as? String == "users" && shown["audienceSize"] as? Int == 2)
        #expect(
            shown["activityType"] as? String == "DeliveryAttributes" && shown["activityKind"] as? String == "activity")
        let text = try await cli.run("campaign", "show", id).stdout
        #expect(text.contains("audience     activities of DeliveryAttributes, users (2)"), "\(text)")

        let starts = try await cli.run(
            "campaign", "create", "--activity-type", "DeliveryAttributes", "--kind", "pushToStart",
            "--push-type", "liveactivity", "--topic", Self.topic, "--payload", Self.update)
        #expect(starts.status == 0, "\(starts.stderr)")
        let startsShown = try json(
            try await cli.run(
                "campaign", "show", starts.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--json"
            )
            .stdout)
        #expect(startsShown["audience"] as? String == "all" && startsShown["activityKind"] as? String == "pushToStart")
        // A campaign to every device says it has no activity audience.
        let all = try await cli.run(
            "campaign", "create", "--all", "--topic", Self.topic, "--payload", #"{"aps":{"alert":"hi"}}"#)
        #expect(all.status == 0)
        let allShown = try json(
            try await cli.run("campaign", "show", all.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--json")
                .stdout
        )
        #expect(allShown["activityType"] is NSNull && allShown["activityKind"] is NSNull)
        let table = try await cli.run("campaign", "list").lines
        #expect(
            table.filter { $0.contains(" activities ") }.count == 2 && table.filter { $0.contains(" all ") }.count == 1,
            "\(table)")
    }

    @Test func activityAudiencesBreakingARuleAreUsageErrorsThatCreateNothing() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let base = ["campaign", "create", "--topic", Self.topic, "--payload", Self.update]
        let cases: [([String], String)] = [
            (["--push-type", "liveactivity", "--kind", "pushToStart", "--all"], "--kind goes with --activity-type"),
            (
                ["--push-type", "liveactivity", "--activity-type", "DeliveryAttributes", "--all"],
                "choose exactly one audience"
            ),
            (["--activity-type", "DeliveryAttributes"], "takes push type liveactivity"),
            (
                ["--push-type", "liveactivity", "--activity-type", "DeliveryAttributes", "--kind", "device"],
                "not kind device"
            ),
            (["--push-type", "liveactivity", "--activity-type", "9Lives"], "must start with a letter"),
            (
                ["--push-type", "liveactivity", "--activity-type", "DeliveryAttributes", "--kind", "later"],
                "--kind must be"
            ),
        ]
        for (extra, message) in cases {
            let result = try await cli.run(base + extra)
            #expect(result.status == 64, "\(extra): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(extra): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(extra): \(result.stderr)")
        }
        #expect(try await cli.run("campaign", "list", "--json").lines.isEmpty)
    }
}
