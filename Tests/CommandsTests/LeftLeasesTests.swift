import CLITestSupport
import Dispatcher
import Foundation
import PostgresStore
import QueueModel
import Store
import TestSupport
import Testing

/// `worker --until-idle` and the leases of workers that are not it, on SQLite and on PostgreSQL, with those workers'
/// rows written directly: another host's (judged by its heartbeat) and this process's pid with another start time.
@Suite struct LeftLeasesTests {
    static let engines: [Bool] = PostgresCluster.enabled ? [false, true] : [false]

    /// Runs `body` on `fleet`'s database, its campaign expanded, through a store of its own closed after.
    static func writing<T>(
        to fleet: Fleet, postgres: Bool, _ body: (any DeliveryStore) async throws -> T
    ) async throws -> T {
        let database = fleet.cli.database
        let (store, close): (any DeliveryStore, () async -> Void)
        if postgres {
            let opened = try await PostgresStore.open(url: database)
            (store, close) = (opened, { await opened.close() })
        } else {
            let opened = try await Store.open(at: database)
            (store, close) = (opened, { await opened.close() })
        }
        do {
            _ = try await store.expandDueCampaigns(now: Date(), pageSize: 1000, maxPages: 10)
            let value = try await body(store)
            await close()
            return value
        } catch {
            await close()
            throw error
        }
    }

    static func fleet(devices: Int, postgres: Bool) async throws -> Fleet {
        try await Fleet(
            devices: devices, rate: 0, database: postgres ? try PostgresCluster.shared.createDatabase() : nil)
    }

    static func statuses(_ fleet: Fleet) async throws -> [String: Int] {
        try await fleet.log().reduce(into: [:]) { $0[$1["status"] as? String ?? "?", default: 0] += 1 }
    }

    @Test(arguments: engines) func anotherHostsSilentWorkerIsTakenOverWhenItsLeaseEndsAndALiveOneKeepsItsOwn(
        postgres: Bool
    ) async throws {
        let fleet = try await Self.fleet(devices: 60, postgres: postgres)
        defer { fleet.stop() }
        let busy = try await Self.writing(to: fleet, postgres: postgres) { store in
            // Its pid means nothing here (another boot): only its heartbeat tells. Its last was a second ago (more
            // than two 0.2 s heartbeats), and it holds 20.
            let silent = try await store.registerWorker(
                ProcessIdentity(host: "gone.example", pid: 4242, bootID: "another-boot", pidNamespace: 1, startTime: 9),
                now: Date().addingTimeInterval(-1))
            #expect(try await store.claim(now: Date(), limit: 20, leaseFor: .seconds(60), worker: silent).count == 20)
            // Another host's worker that heartbeats (its last heartbeat is in the future): its 10 are its own.
            let busy = try await store.registerWorker(
                ProcessIdentity(host: "busy.example", pid: 77), now: Date().addingTimeInterval(3600))
            #expect(try await store.claim(now: Date(), limit: 10, leaseFor: .seconds(60), worker: busy).count == 10)
            return busy
        }

        // Fleet's heartbeat is 0.2 s and its lease 1.5 s: the silent worker's leases are taken over 1.5 s after its
        // last heartbeat, and sent.
        let run = try await fleet.cli.run("worker", "--until-idle")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("worker.stale_leases_taken_over"), "\(run.stderr)")
        #expect(run.lines.first == "10 deliveries are being sent by worker \(busy) (busy.example, 77)", "\(run.stdout)")
        #expect(try await Self.statuses(fleet) == ["accepted": 50, "pending": 10])
        #expect(fleet.accepted == 50, "nothing was sent twice")
    }

    @Test(arguments: engines) func aRowWithThisProcesssPidButAnotherStartTimeIsDeadAtOnce(postgres: Bool) async throws {
        let fleet = try await Self.fleet(devices: 40, postgres: postgres)
        defer { fleet.stop() }
        var reused = ProcessIdentity.current
        let started = try #require(reused.startTime, "this host's /proc has no start time")
        try #require(reused.bootID != nil && reused.pidNamespace != nil)
        // A worker that ran under this pid before this process: its heartbeat is fresh (in the future, so that a
        // loaded machine cannot make it stale before the check), and its lease long.
        reused.startTime = started - 1
        try await Self.writing(to: fleet, postgres: postgres) { store in
            let dead = try await store.registerWorker(reused, now: Date().addingTimeInterval(3600))
            #expect(try await store.claim(now: Date(), limit: 40, leaseFor: .seconds(60), worker: dead).count == 40)
        }

        let listed = try await fleet.workers()
        #expect(listed.count == 1 && listed[0]["dead"] as? Bool == true && listed[0]["stale"] as? Bool == false)
        let table = try await fleet.cli.run("workers")
        #expect(table.lines.last?.hasSuffix("dead (process gone: leases taken over by the next worker)") == true)

        let run = try await fleet.cli.run(
            ["worker", "--until-idle"], environment: ["APNSD_WORKER_HEARTBEAT": "5", "APNSD_WORKER_LEASE": "30"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("worker.dead_leases_taken_over"), "\(run.stderr)")
        #expect(!run.stdout.contains("are being sent by"), "\(run.stdout)")
        #expect(try await Self.statuses(fleet) == ["accepted": 40])
        #expect(try await fleet.workers().isEmpty)
    }
}
