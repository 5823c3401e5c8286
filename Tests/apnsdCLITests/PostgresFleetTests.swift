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
        #expect(victim.suspend(), "the victim did not stop")
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

    @Test func theDatabaseRestartedWhileServeEnqueuesAndTwoWorkersSend() async throws {
        // A cluster of its own: the restart ends every session of the shared one's other tests.
        let cluster = try PostgresCluster()
        defer {
            try? cluster.stop(mode: "immediate")
            cluster.remove()
        }
        let devices = 2_000
        let rate = 200
        let fleet = try await Fleet(devices: devices, rate: rate, database: try cluster.createDatabase())
        defer { fleet.stop() }
        let api = try await APIHarness(cli: fleet.cli, arguments: ["--no-worker"], initialized: true)
        defer { api.stop() }
        // Nobody dies here: the default lease, so that the heartbeats the restart holds up hand no live worker's
        // claims to the other.
        let workers = try (0..<2).map { _ in try fleet.startWorker(environment: ["APNSD_WORKER_LEASE": "30"]) }
        defer { for worker in workers { worker.killIfRunning() } }
        let clients = EnqueueClients(base: api.base, key: api.sender, firstToken: devices + 1)
        let clientCount = 3
        let running = clients.start(clientCount)
        let logs = { "serve: \(api.serve.log.suffix(1500))\nworkers: \(workers.map { $0.log.suffix(1500) })" }
        #expect(
            await Fleet.eventually(60, every: 0.2) { fleet.accepted >= 500 && clients.accepted.count >= 10 },
            "sending and enqueueing should be under way: \(logs())")
        let listening = "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN apnsd'"
        #expect(
            try await Fleet.eventually(30, every: 0.2) { try fleet.query(listening) == ["2"] },
            "each worker listens for wake-ups")

        // The restart ends every session at once; the held session keeps the server shutting down (refusing every
        // connection) until the clients, serve and the workers have been seen to meet the outage.
        let hold = try cluster.holdShutdown()
        let restart = try cluster.beginRestart(mode: "fast")
        var readyWhileDown = (status: 0, database: "", body: "")
        #expect(
            await Fleet.eventually(60, every: 0.2) {
                readyWhileDown = await Self.readiness(api.base)
                return readyWhileDown.status == 503 && !readyWhileDown.database.isEmpty
                    && readyWhileDown.database != "ok"
            }, "/readyz while the database is down: \(readyWhileDown.body)")
        #expect(
            await Fleet.eventually(60, every: 0.2) {
                Set(clients.refusals.filter { $0.status == 503 }.map { $0.client }).count == clientCount
                    && workers.allSatisfy { !$0.events("worker.storage_fault").isEmpty }
            }, "every client got a 503 and every worker paused: \(clients.refusals.count) refusals; \(logs())")
        hold.release()
        let restarted = await restart.exit()
        let back = Date()
        #expect(restarted == .exited(0), "pg_ctl restart: \(restarted)")

        // Everyone reconnects: serve (ready again, enqueueing again), each worker's store and its listener.
        var readyAgain = (status: 0, database: "", body: "")
        #expect(
            await Fleet.eventually(60, every: 0.2) {
                readyAgain = await Self.readiness(api.base)
                return readyAgain.status == 200 && readyAgain.database == "ok"
            }, "/readyz once the database is back: \(readyAgain.body)")
        let beforeBack = clients.accepted.count
        #expect(
            await Fleet.eventually(60, every: 0.2) { clients.accepted.count >= beforeBack + 10 },
            "serve enqueues again: \(logs())")
        clients.stop()
        await running.value
        #expect(
            try await Fleet.eventually(60, every: 0.3) { try fleet.query(listening) == ["2"] },
            "both workers listen again: \(logs())")
        let singles = clients.accepted
        var log: [[String: Any]] = []
        let finished = try await Fleet.eventually(120, every: 0.5) {
            log = try await fleet.log()
            return log.count == devices + singles.count && log.allSatisfy { $0["status"] as? String == "accepted" }
        }
        let campaign = try await fleet.show(fleet.campaign!)
        #expect(
            finished && campaign["status"] as? String == "completed",
            "every accepted notification and the campaign should be sent: \(log.count) rows, \(log.filter { $0["status"] as? String != "accepted" }.prefix(3)); \(logs())"
        )
        // A restart with nothing held (a fraction of a second) while serve sits idle: the session it ended is
        // replaced before serve's next request uses it, which is answered, not refused.
        let quick = try cluster.beginRestart(mode: "fast")
        let quickly = await quick.exit()
        #expect(quickly == .exited(0), "pg_ctl restart: \(quickly)")
        let readyAtOnce = await Self.readiness(api.base)
        #expect(readyAtOnce.status == 200, "/readyz right after a restart: \(readyAtOnce.body)")
        for worker in workers {
            #expect(
                !worker.events("worker.storage_recovered").isEmpty, "the worker recovered: \(worker.log.suffix(1500))")
            #expect(
                worker.terminate(within: 20) != nil && worker.process.terminationStatus == 0,
                "\(worker.log.suffix(2000))")
        }

        // Enqueues were refused only with 503 and Retry-After (never 500), and only while the database was away.
        let refusals = clients.refusals
        let unexpected = refusals.filter { refusal in
            refusal.status != 503 || refusal.retryAfter == nil || refusal.code != "database_unavailable"
        }
        #expect(unexpected.isEmpty, "\(unexpected.prefix(3).map { refusal in "\(refusal.status) \(refusal.body)" })")
        let afterwards = refusals.filter { $0.sentAt > back }
        #expect(afterwards.isEmpty, "refused once the database was back: \(afterwards.prefix(3).map(\.body))")
        // Nothing accepted is lost: each notification enqueued reached APNs, in its own row.
        let stats = fleet.server.stats()
        let rowsByToken = Dictionary(grouping: log.compactMap { $0["token"] as? String }, by: { $0 })
        let lost = singles.keys.filter { (stats.tokens[$0]?["200"] ?? 0) == 0 || rowsByToken[$0]?.count != 1 }
        #expect(lost.isEmpty, "enqueued but not delivered once: \(lost.prefix(5))")
        #expect(stats.tokens.count == devices + singles.count, "every device and every enqueued token reached APNs")
        // Nothing sent twice beyond what was in flight: a worker hands the transport at most `maxInFlight`
        // requests (one second of its rate, one connection) and keeps the answers the database could not take, so
        // only requests answered around the restart could go out again.
        let twice = stats.tokens.filter { ($0.value["200"] ?? 0) > 1 }
        #expect(twice.count <= workers.count * rate, "\(twice.count) tokens accepted twice")
        print(
            "postgres restart: \(singles.count) enqueued, \(refusals.count) answered 503, \(twice.count) tokens accepted twice"
        )
    }

    /// `GET /readyz`: its status, its `database` check ("" when absent) and its body.
    private static func readiness(_ base: String) async -> (status: Int, database: String, body: String) {
        guard let answer = await HTTPClient.request("GET", base + "/readyz", headers: []) else { return (0, "", "") }
        let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        let database = (object?["checks"] as? [String: String])?["database"] ?? ""
        return (answer.status, database, answer.body)
    }
}
