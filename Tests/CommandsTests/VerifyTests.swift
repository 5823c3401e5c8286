import APNsMock
import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd device verify` through apns-mock: a silent push to each device; the 410 and 400 answers deactivate.
@Suite struct VerifyTests {
    @Test func verifyDeactivatesDeadTokensAndCounts() async throws {
        let dead = Tokens.hex(3)
        let bad = Tokens.hex(5)
        let fleet = try await Fleet(
            devices: 8, rate: 0, campaign: false,
            scenario: Scenario(tokens: [
                dead: TokenBehaviour(respond: .unregistered), bad: TokenBehaviour(respond: .badDeviceToken),
            ]))
        defer { fleet.stop() }
        let worker = fleet.runWorker()
        defer { worker.stopIfRunning() }
        let verified = try await fleet.cli.run("device", "verify", "--all")
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        let id = try #require(verified.lines.first)
        #expect(
            verified.lines.last
                == "verified 8 devices: 6 reachable, 1 unregistered (deactivated), 1 rejected (bad tokens deactivated), 0 failed, 0 cancelled",
            "\(verified.stdout)")
        let shown = try await fleet.show(Int(id)!)
        #expect(
            shown["kind"] as? String == "verify" && shown["pushType"] as? String == "background"
                && shown["priority"] as? Int == 5, "\(shown)")
        let devices = try await fleet.cli.run("device", "list", "--json").lines.map(Fleet.json)
        let inactive = devices.filter { $0["active"] as? Bool == false }.compactMap { $0["token"] as? String }
        #expect(Set(inactive) == [dead, bad], "\(devices)")
        // A verify campaign lists under its kind, not as bulk.
        #expect(try await fleet.cli.run("campaign", "list", "--kind", "verify", "--json").lines.count == 1)
        #expect(try await fleet.cli.run("campaign", "list", "--kind", "bulk", "--json").lines.isEmpty)
        // --no-wait prints the id at once; the next campaign goes only to the devices still active.
        let queued = try await fleet.cli.run("device", "verify", "--all", "--no-wait")
        #expect(queued.status == 0 && queued.lines.count == 1 && Int(queued.lines[0]) != nil, "\(queued.stdout)")
        #expect(
            await Fleet.eventually(30) {
                (try? await fleet.show(Int(queued.lines[0])!)["status"] as? String) == "completed"
            })
        #expect(try await fleet.show(Int(queued.lines[0])!)["total"] as? Int == 6)
        #expect(try await fleet.cli.run("device", "verify").status == 64, "an audience is required")
        #expect(await worker.terminate(within: 20) != nil)
    }
}
