import CLITestSupport
import Foundation
import Testing

extension WorkerFleet {
    /// SIGTERM at a low rate: the worker withdraws what waits for the throttle instead of sending it out first.
    @Suite struct SlowStopTests {
        static let devices = 300

        @Test func sigtermAtFivePerSecondExitsWithinFiveSeconds() async throws {
            let fleet = try await Fleet(devices: Self.devices, rate: 5)
            defer { fleet.stop() }
            let worker = try fleet.startWorker()
            defer { worker.killIfRunning() }
            #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 3 }, "\(worker.log.suffix(2000))")

            let took = worker.terminate(within: 15)
            let seconds = try #require(took, "the worker did not exit on SIGTERM; log:\n\(worker.log.suffix(2000))")
            #expect(seconds < 5, "SIGTERM took \(seconds) s")
            #expect(
                worker.process.terminationReason == .exit && worker.process.terminationStatus == 0,
                "\(worker.log.suffix(2000))")
            #expect(worker.events("worker.stopping").count == 1)

            // Everything the mock accepted is recorded; the rest is pending, never attempted, and nobody's: the rows
            // written so far (a worker expands the campaign as it sends) and the audience not expanded yet, which
            // the campaign counts as pending.
            let stats = fleet.server.stats()
            let log = try await fleet.log()
            let accepted = log.filter { $0["status"] as? String == "accepted" }
            let pending = log.filter { $0["status"] as? String == "pending" }
            #expect(accepted.count == stats.totals.statuses["200"] && accepted.count == stats.totals.requests)
            #expect(accepted.count + pending.count == log.count, "only accepted and pending rows")
            let shown = try await fleet.show(try #require(fleet.campaign))
            #expect(shown["total"] as? Int == Self.devices, "\(shown)")
            #expect(shown["pending"] as? Int == Self.devices - accepted.count, "\(shown)")
            #expect(pending.count > 0 || log.count < Self.devices, "the stop came too late to test anything")
            #expect(
                pending.allSatisfy { $0["attempts"] as? Int == 0 && $0["httpStatus"] is NSNull }, "attempts unchanged")
            #expect(
                try fleet.query(
                    """
                    SELECT count(*) FROM deliveries WHERE status = 'pending'
                    AND (leased_by IS NOT NULL OR leased_until IS NOT NULL OR next_attempt_at > CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 1000)
                    """) == ["0"], "every lease released, due now")
            #expect(try await fleet.workers().isEmpty, "the worker unregistered")

            // Another run at a higher rate finishes the campaign without sending anything twice.
            let resumed = try await fleet.cli.run(["worker", "--until-idle"], environment: ["APNSD_RATE": "1000"])
            #expect(resumed.status == 0, "\(resumed.stderr.suffix(2000))")
            try await fleet.expectAllAcceptedOnce()
            #expect(fleet.server.stats().totals.tokensAcceptedTwice == 0)
            #expect(fleet.server.stats().totals.requests == Self.devices)
            print("sigterm at 5/s: exited in \(String(format: "%.2f", seconds)) s with \(accepted.count) accepted")
        }
    }
}
