import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd stats` after a campaign went out through apns-mock, and the same object at `GET /v1/stats`.
@Suite(.offThePool) struct StatsCommandTests {
    @Test func statsAfterACampaignFromTheCLIAndTheAPI() async throws {
        let fleet = try await Fleet(devices: 25, rate: 0)
        defer { fleet.stop() }
        let id = String(try #require(fleet.campaign))
        let run = try await fleet.cli.run("worker", "--until-idle")
        try #require(run.status == 0, "\(run.stderr.suffix(1000))")

        let stats = try await fleet.cli.run("stats", "--json")
        #expect(stats.status == 0, "\(stats.stderr)")
        let object = try Fleet.json(stats.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect((object["outcomes"] as? [String: [String: Int]]) == ["accepted": ["none": 25]], "\(object)")
        #expect(
            object["requests"] as? Int == 25 && object["accepted"] as? Int == 25
                && object["deactivated"] as? Int == 0)
        #expect((object["queue"] as? [String: Any])?["pendingBulk"] as? Int == 0 && object["campaign"] is NSNull)

        let one = try Fleet.json(try await fleet.cli.run("stats", "--campaign", id, "--since", "2h", "--json").stdout)
        #expect(
            (one["campaign"] as? [String: Any])?["id"] as? String == id
                && (one["outcomes"] as? [String: [String: Int]]) == ["accepted": ["none": 25]])
        let plain = try await fleet.cli.run("stats")
        #expect(
            plain.status == 0 && plain.stdout.contains("requests   25")
                && plain.lines.contains { $0.hasPrefix("accepted") && $0.hasSuffix(" 25") },
            "\(plain.stdout)")
        #expect(try await fleet.cli.run("stats", "--since", "yesterday").status == 64)
        #expect(try await fleet.cli.run("stats", "--campaign", "x").status == 64)
        #expect(try await fleet.cli.run("stats", "--campaign", "999").status == 1)

        // The API answers the same object (scope read).
        let key = try await APIHarness.createKey(fleet.cli, "ops", ["read"])
        let (serve, base) = try ServeTests.start(fleet.cli, ["--no-worker"])
        defer { serve.killIfRunning() }
        let answer = try #require(
            HTTPClient.request("GET", base + "/v1/stats?since=1h", headers: ["Authorization: Bearer \(key)"]))
        #expect(answer.status == 200, "\(answer.body)")
        let api = try Fleet.json(answer.body)
        #expect(
            (api["outcomes"] as? [String: [String: Int]]) == ["accepted": ["none": 25]]
                && api["requests"] as? Int == 25)
        let bad = try #require(
            HTTPClient.request("GET", base + "/v1/stats?since=soon", headers: ["Authorization: Bearer \(key)"]))
        #expect(bad.status == 400 && bad.body.contains(#""field":"since""#), "\(bad.body)")
        let unknown = try #require(
            HTTPClient.request("GET", base + "/v1/stats?campaign=999", headers: ["Authorization: Bearer \(key)"]))
        #expect(unknown.status == 404, "\(unknown.body)")
    }
}
