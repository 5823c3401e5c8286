import CLITestSupport
import Foundation
import TestSupport
import Testing

extension SeveralTeamsTests {
    /// Channels of each app go out with the app's credential, and so do broadcasts on them: a second team's key,
    /// and a certificate credential's client certificate (no JWT).
    @Test func channelsUseTheCredentialThatSendsTheirApp() async throws {
        var setup = try await Self.setup()
        defer { setup.cli.cleanUp() }
        let server = try Self.mock(setup, teams: [setup.teamA, setup.teamB])
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)"
        setup.cli.environment.merge(["APNSD_CHANNEL_PRODUCTION_URL": url, "APNSD_PRODUCTION_URL": url]) { $1 }
        try #require(await setup.cli.run("init").status == 0)
        var ids: [String] = []
        for (topic, credential) in [(Self.shop, "shop"), (Self.rides, "rides"), (Self.legacy, "legacy")] {
            let created = try await setup.cli.run("channel", "create", "--topic", topic, "--json")
            #expect(created.status == 0, "\(topic): \(created.stderr)")
            let channel = try Fleet.json(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(channel["credential"] as? String == credential)
            let id = try #require(channel["channelId"] as? String)
            #expect(server.stats().channels.byID[id]?.bundleID == topic)
            let sent = try await setup.cli.run(
                "send", "--channel", id, "--payload",
                #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":"2-1"}}}"#)
            #expect(sent.status == 0, "\(topic): \(sent.stderr)")
            ids.append(id)
        }
        let worker = try await setup.cli.run("worker", "--until-idle")
        #expect(worker.status == 0, "\(worker.stderr.suffix(1500))")
        #expect(ids.map { server.stats().broadcasts(channel: $0) } == [1, 1, 1], "\(server.stats().channels)")
        for id in ids {
            #expect(try await setup.cli.run("channel", "show", id).status == 0)
            #expect(try await setup.cli.run("channel", "delete", id).status == 0)
        }
        #expect(server.stats().channels.deleted == 3)
        let unknown = try await setup.cli.run("channel", "create", "--topic", "com.nobody.app")
        #expect(unknown.status == 64 && unknown.stderr.contains("no credential sends for topic"), "\(unknown.stderr)")
    }
}
