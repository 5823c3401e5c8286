import CLITestSupport
import Foundation
import Testing

extension WorkerFleet {
    /// Two `apnsd worker` processes on one database: a worker owns its leases until its heartbeat goes stale.
    @Suite struct SeveralWorkersTests {
        static let devices = 3000
        static let rate = 300

        @Test func killNineOfOneOfTwoWorkers() async throws {
            let fleet = try await Fleet(devices: Self.devices, rate: Self.rate)
            defer { fleet.stop() }
            let victim = try fleet.startWorker()
            let survivor = try fleet.startWorker()
            defer {
                victim.killIfRunning()
                survivor.killIfRunning()
            }

            // Both registered and both sending (each claims about 2 s of its rate).
            #expect(
                try await Fleet.eventually(20, every: 0.2) {
                    let workers = try await fleet.workers()
                    return workers.count == 2 && workers.allSatisfy { ($0["leases"] as? Int ?? 0) > 0 }
                        && fleet.accepted >= 900
                }, "both workers should be sending:\n\(victim.log.suffix(1000))\n\(survivor.log.suffix(1000))")
            let shape = try await fleet.workers()
            for worker in shape {
                #expect(
                    Set(worker.keys) == ["id", "host", "pid", "startedAt", "heartbeatAt", "leases", "stale", "dead"],
                    "\(worker)")
                #expect(
                    (worker["id"] as? String).flatMap { Int($0) } != nil && !(worker["host"] as? String ?? "").isEmpty
                        && worker["leases"] is Int)
                #expect(worker["stale"] as? Bool == false && worker["dead"] as? Bool == false)
                for key in ["startedAt", "heartbeatAt"] {
                    #expect(Self.date(worker[key]) != nil, "\(key) is an ISO 8601 time: \(worker[key] ?? "nil")")
                }
            }
            #expect(Set(shape.compactMap { $0["pid"] as? Int }) == [Int(victim.pid), Int(survivor.pid)])

            // Stopped first, so that what it held can be read before the survivor sees it dead: a stopped process
            // lives, and its heartbeat is fresh.
            #expect(victim.suspend(), "the victim did not stop")

            // What it holds, then the listing (which proves the first read came before any takeover, since a
            // takeover removes the worker's row in the same transaction as its leases).
            let victimID = try #require(shape.first { $0["pid"] as? Int == Int(victim.pid) }?["id"] as? String)
            let held = Set(
                try fleet.query("SELECT token FROM deliveries WHERE leased_by = \(victimID) AND status = 'pending'"))
            let afterKill = try await fleet.workers()
            let dead = try #require(
                afterKill.first { $0["id"] as? String == victimID },
                "the dead worker is still listed right after the kill")
            let deadLeases = try #require(dead["leases"] as? Int)
            #expect(deadLeases > 0 && deadLeases == held.count, "leases \(deadLeases), rows leased by it \(held.count)")
            #expect(fleet.accepted < Self.devices, "the kill came too late to test anything")

            kill(victim.pid, SIGKILL)
            victim.process.waitUntilExit()
            #expect(victim.process.terminationReason == .uncaughtSignal)

            // Its heartbeat is fresh, but the survivor (same host, same pid namespace) sees its process gone: its
            // row goes, with its leases, without waiting for worker.lease.
            #expect(
                try await Fleet.eventually(15, every: 0.05) {
                    try await !fleet.workers().contains { $0["id"] as? String == victimID }
                }, "the dead worker's row should be removed by the takeover")

            // The survivor finishes the campaign alone, then stops cleanly.
            #expect(
                try await Fleet.eventually(40, every: 0.3) {
                    try await fleet.log("--status", "accepted").count == Self.devices
                },
                "the survivor should finish the campaign; log:\n\(survivor.log.suffix(2000))")
            let took = survivor.terminate(within: 10)
            #expect(took != nil && survivor.process.terminationStatus == 0, "\(survivor.log.suffix(2000))")
            let takeovers = survivor.events("worker.dead_leases_taken_over")
            #expect(takeovers.count == 1, "\(takeovers)")
            #expect(survivor.events("worker.stale_leases_taken_over").isEmpty)
            #expect(takeovers.first?["workers"] as? String == String(victimID))
            #expect(takeovers.first?["deliveries"] as? Int == deadLeases, "\(takeovers)")
            #expect(try await fleet.workers().isEmpty, "the survivor unregistered when it stopped")

            try await fleet.expectAllAcceptedOnce()
            // Only what the dead worker held (in flight, or answered and not yet recorded) went out twice, and well
            // under its in-flight window: about a second of its rate plus 100 ms of answers.
            let stats = fleet.server.stats()
            let twice = Set(stats.tokens.filter { ($0.value["200"] ?? 0) > 1 }.keys)
            #expect(twice.count == stats.totals.tokensAcceptedTwice)
            let strays = twice.subtracting(held)
            #expect(
                strays.isEmpty,
                "\(strays.count) tokens accepted twice that the dead worker did not hold, e.g. \(strays.sorted().prefix(5))"
            )
            #expect(
                stats.totals.tokensAcceptedTwice <= Self.rate + Self.rate / 10,
                "\(stats.totals.tokensAcceptedTwice) devices got two 200s")
            #expect(stats.tokens.values.allSatisfy { ($0["200"] ?? 0) <= 2 })
            // The survivor's connection was never cut: one connection per worker.
            #expect(stats.totals.connections == 2, "connections: \(stats.connections.map(\.requests))")
            print(
                "killNine: connections \(stats.connections.map(\.requests)); dead worker held \(deadLeases) leases, \(stats.totals.tokensAcceptedTwice) accepted twice"
            )
        }

        static func date(_ value: Any?) -> Date? {
            guard let text = value as? String else { return nil }
            return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
    }
}
