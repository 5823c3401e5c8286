import CLITestSupport
import Foundation
import TestSupport
import Testing

/// Several `apnsd worker` processes — each with its own pool and JWT cache, as on several hosts — sharing one
/// PostgreSQL queue through apns-mock. One at a time, as `WorkerFleet`'s, and beside them: two fleets at once
/// leave the two cores room enough, three would not.
@Suite(.serialized, .enabled(if: PostgresCluster.enabled)) struct PostgresFleetTests {
    @Test func threeWorkersShareOneQueueOfTwentyThousandDevices() async throws {
        let devices = 20_000
        let fleet = try await Fleet(
            devices: devices, rate: 0, database: try PostgresCluster.shared.createDatabase())
        defer { fleet.stop() }
        // A long lease: nobody dies here, and on a loaded machine a heartbeat can be late by more than the
        // fleet's 1.5 s, which would hand a live worker's claims to another.
        let workers = try (0..<3).map { _ in
            try fleet.startWorker(environment: ["APNSD_CONNECTIONS": "2", "APNSD_WORKER_LEASE": "30"])
        }
        defer { for worker in workers { worker.killIfRunning() } }
        #expect(
            try await Fleet.eventually(600, every: 0.5) {
                try await fleet.show(fleet.campaign!)["status"] as? String == "completed"
            },
            "the campaign should complete: \(workers.map { $0.log.suffix(1500) })")
        for worker in workers {
            #expect(
                worker.terminate(within: 20) != nil && worker.process.terminationStatus == 0,
                "\(worker.log.suffix(2000))")
        }
        try await fleet.expectAllAcceptedOnce()
        let stats = fleet.server.stats()
        #expect(stats.totals.tokensAcceptedTwice == 0, "no device got two 200s")
        #expect(stats.totals.connections == 6, "two connections per worker: \(stats.connections.map(\.requests))")
        // Every worker took its share: claims are spread by SKIP LOCKED, not serialized on one of them.
        let sent = workers.compactMap { $0.events("worker.finished").first?["accepted"] as? Int }
        #expect(
            sent.count == 3 && sent.allSatisfy { $0 > devices / 20 } && sent.reduce(0, +) == devices,
            "accepted per worker: \(sent)")
        print("postgres fleet: 3 workers, \(devices) devices, accepted per worker \(sent)")
    }

    @Test func killNineOfOneOfThreeWorkers() async throws {
        let devices = 6_000
        let rate = 300
        let fleet = try await Fleet(
            devices: devices, rate: rate, database: try PostgresCluster.shared.createDatabase())
        defer { fleet.stop() }
        let workers = try (0..<3).map { _ in try fleet.startWorker() }
        defer { for worker in workers { worker.killIfRunning() } }
        #expect(
            try await Fleet.eventually(30, every: 0.2) {
                let listed = try await fleet.workers()
                return listed.count == 3 && listed.allSatisfy { ($0["leases"] as? Int ?? 0) > 0 }
                    && fleet.accepted >= 1000
            }, "all three should be sending: \(workers.map { $0.log.suffix(800) })")
        let victim = workers[0]
        let victimID = try #require(
            try await fleet.workers().first { $0["pid"] as? Int == Int(victim.pid) }?["id"] as? String)
        // Stopped first, so that what it holds can be read before the others see it dead (a stopped process lives).
        kill(victim.pid, SIGSTOP)
        let held = Set(
            try fleet.query("SELECT token FROM deliveries WHERE leased_by = \(victimID) AND status = 'pending'"))
        #expect(!held.isEmpty && fleet.accepted < devices, "the kill came too late to test anything")
        kill(victim.pid, SIGKILL)
        victim.process.waitUntilExit()

        #expect(
            try await Fleet.eventually(90, every: 0.3) {
                try await fleet.show(fleet.campaign!)["status"] as? String == "completed"
            },
            "the survivors should finish: \(workers[1...].map { $0.log.suffix(1500) })")
        // The survivors (same host, same pid namespace) see its process gone: taken over at once, by one of them.
        let takeovers = workers[1...].flatMap { $0.events("worker.dead_leases_taken_over") }
        #expect(takeovers.count == 1 && takeovers.first?["workers"] as? String == victimID, "\(takeovers)")
        for worker in workers[1...] {
            #expect(
                worker.terminate(within: 20) != nil && worker.process.terminationStatus == 0,
                "\(worker.log.suffix(2000))")
        }
        let log = try await fleet.log()
        #expect(
            log.count == devices && log.allSatisfy { $0["status"] as? String == "accepted" },
            "one accepted row per device")
        // Only what the dead worker held can have gone out twice.
        let stats = fleet.server.stats()
        let twice = Set(stats.tokens.filter { ($0.value["200"] ?? 0) > 1 }.keys)
        #expect(
            twice.subtracting(held).isEmpty,
            "accepted twice without being held by the dead worker: \(twice.subtracting(held).prefix(5))")
        #expect(stats.tokens.count == devices)
    }

    @Test func aCancelReachesAllThreeWorkers() async throws {
        let devices = 6_000
        let rate = 200
        let fleet = try await Fleet(
            devices: devices, rate: rate, database: try PostgresCluster.shared.createDatabase())
        defer { fleet.stop() }
        // Nobody dies here: a long lease, as above.
        let workers = try (0..<3).map { _ in try fleet.startWorker(environment: ["APNSD_WORKER_LEASE": "30"]) }
        defer { for worker in workers { worker.killIfRunning() } }
        let campaign = try #require(fleet.campaign)
        #expect(
            try await Fleet.eventually(30, every: 0.2) {
                try await fleet.workers().filter { ($0["leases"] as? Int ?? 0) > 0 }.count == 3
            }, "all three should hold leases: \(workers.map { $0.log.suffix(800) })")
        let result = try await fleet.cli.run("campaign", "cancel", String(campaign), "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Fleet.json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["status"] as? String == "cancelled", "\(report)")
        let atReturn = fleet.server.stats().totals.requests
        // Each worker acknowledged it: the command returned only after all three stopped sending the campaign.
        for worker in workers {
            #expect(
                await Fleet.eventually(10) { !worker.events("worker.campaign_cancelled").isEmpty },
                "\(worker.log.suffix(1500))")
        }
        try await Task.sleep(for: .seconds(1))
        let later = fleet.server.stats().totals.requests
        #expect(later == atReturn, "\(later - atReturn) requests after the cancel returned")
        let shown = try await fleet.show(campaign)
        #expect(shown["status"] as? String == "cancelled" && shown["pending"] as? Int == 0, "\(shown)")
        #expect((shown["accepted"] as? Int ?? 0) + (shown["cancelled"] as? Int ?? 0) == devices, "\(shown)")
    }

    @Test func theDatabaseStoppedAndRestartedMidCampaign() async throws {
        // Durable, as a production server is: the crash below must not take back acknowledged commits.
        let cluster = try PostgresCluster(durable: true)
        defer {
            try? cluster.stop(mode: "immediate")
            cluster.remove()
        }
        let devices = 4_000
        let rate = 300
        let fleet = try await Fleet(devices: devices, rate: rate, database: try cluster.createDatabase())
        defer { fleet.stop() }
        let workers = try (0..<2).map { _ in try fleet.startWorker() }
        defer { for worker in workers { worker.killIfRunning() } }
        #expect(
            await Fleet.eventually(30, every: 0.2) { fleet.accepted >= 800 },
            "\(workers.map { $0.log.suffix(800) })")
        try cluster.stop(mode: "immediate")
        let stoppedAt = fleet.accepted
        // Each worker's next write fails and it pauses sending; what it had handed to its connection still goes
        // out. The mock's count is read once it holds still.
        #expect(
            await Fleet.eventually(60, every: 0.1) {
                workers.allSatisfy { !$0.events("worker.storage_fault").isEmpty }
            },
            "the workers did not notice the outage: \(workers.map { $0.log.suffix(800) })")
        var duringOutage = fleet.accepted
        _ = await Fleet.eventually(30, every: 0.5) {
            let now = fleet.accepted
            defer { duringOutage = now }
            return now == duringOutage
        }
        // Workers stop sending within what they had claimed (at most a few seconds of their rate).
        #expect(
            duringOutage - stoppedAt <= 4 * rate * 2, "\(duringOutage - stoppedAt) sent while the database was down"
        )
        try cluster.start()
        let finished = try await Fleet.eventually(90, every: 0.3) {
            try await fleet.show(fleet.campaign!)["status"] as? String == "completed"
        }
        let state = """
            \(try await fleet.show(fleet.campaign!))
            \(try fleet.query("SELECT status, leased_by, next_attempt_at > 4000000000000, count(*) FROM deliveries GROUP BY 1, 2, 3"))
            \(try fleet.query("SELECT * FROM campaign_counts"))
            \(try fleet.query("SELECT * FROM workers"))
            \(try fleet.query("SELECT id, token, attempts, leased_until, updated_at, created_at FROM deliveries WHERE status = 'pending' ORDER BY id LIMIT 5"))
            mock: \(try fleet.query("SELECT token FROM deliveries WHERE status = 'pending' ORDER BY id LIMIT 5").map { fleet.server.stats().tokens[$0] ?? [:] })
            """
        #expect(finished, "the workers should resume and finish: \(state)\n\(workers.map { $0.log.suffix(1500) })")
        for worker in workers {
            #expect(
                !worker.events("worker.storage_fault").isEmpty
                    && !worker.events("worker.storage_recovered").isEmpty,
                "each worker saw the outage and recovered: \(worker.log.suffix(1500))")
            #expect(
                worker.terminate(within: 20) != nil && worker.process.terminationStatus == 0,
                "\(worker.log.suffix(2000))")
        }
        let log = try await fleet.log()
        #expect(log.count == devices && log.allSatisfy { $0["status"] as? String == "accepted" }, "nothing lost")
        #expect(fleet.server.stats().tokens.count == devices)
    }
}
