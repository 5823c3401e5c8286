import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// The engine-neutral lease rules of SCHEMA.md ("Workers and leases"), on simulated time.
@Suite struct WorkerLeaseTests {
    func prepared(_ engine: Engine, devices: Int = 10) async throws -> (AnyStore, TestDatabase, CampaignID) {
        let database = try TestDatabase(engine)
        let store = try await database.open()
        try await store.registerDevices(0..<devices)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        return (store, database, campaign)
    }

    @Test(arguments: Engine.all) func aWorkersLeaseOutlivesLeaseForWhileItHeartbeats(engine: Engine) async throws {
        let (store, database, _) = try await prepared(engine)
        defer { database.remove() }
        let a = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        let claimed = try await store.claim(now: at(1), limit: 4, leaseFor: .seconds(30), worker: a)
        #expect(claimed.count == 4)
        // Long after leaseFor, and with A heartbeating, nobody else gets them, and nothing says they are due.
        #expect(try await store.heartbeat(a, view: nil, now: at(100)))
        let b = try await store.registerWorker(host: "h", pid: 2, now: at(100))
        let rescue = try await store.rescueStaleWorkers(now: at(100), staleAfter: .seconds(30), except: b)
        #expect(rescue.workers.isEmpty && rescue.deliveries == 0)
        let other = try await store.claim(now: at(100), limit: 100, leaseFor: .seconds(30), worker: b)
        #expect(other.count == 6 && Set(other.map(\.id)).isDisjoint(with: claimed.map(\.id)))
        #expect(try await store.nextDueDate() == nil)
        let workers = try await store.workers()
        #expect(workers.map(\.leases) == [4, 6])
        #expect(
            workers[0].isStale(now: at(131), lease: .seconds(30))
                && !workers[0].isStale(now: at(129), lease: .seconds(30)))
    }

    /// SQLite keeps only rows no worker leases in `deliveries_due` (0024): a lease takes its row out, an answer
    /// leaves it out, and a lease that ends unanswered (a release, a takeover) puts it back.
    @Test func aLeasedRowLeavesTheDueIndexUntilItsLeaseEndsUnanswered() async throws {
        let (store, database, _) = try await prepared(.sqlite)
        defer { database.remove() }
        // The index's own entries, as ANALYZE counts them (a query would filter by `leased_by` either way).
        func inIndex() async throws -> Int64? {
            try await store.execute("ANALYZE deliveries_due")
            return try await store.scalar("SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE idx = 'deliveries_due'")
        }
        #expect(try await inIndex() == 10)
        let a = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        let claimed = try await store.claim(now: at(1), limit: 4, leaseFor: .seconds(30), worker: a)
        #expect(try await inIndex() == 6)
        _ = try await store.record([.accepted(claimed[0], apnsID: nil)], by: a, now: at(2))
        #expect(try await inIndex() == 6)
        #expect(try await store.releaseLeases(now: at(3)) == 3)
        #expect(try await inIndex() == 9)
        #expect(try await store.claim(now: at(4), limit: 100, leaseFor: .seconds(30), worker: a).count == 9)
    }

    @Test(arguments: Engine.all) func onlyAStaleWorkersLeasesAreTakenOverAndItLearnsSo(engine: Engine) async throws {
        let (store, database, campaign) = try await prepared(engine)
        defer { database.remove() }
        let dead = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        let live = try await store.registerWorker(host: "h", pid: 2, now: at(0))
        let lost = try await store.claim(now: at(1), limit: 3, leaseFor: .seconds(30), worker: dead)
        let kept = try await store.claim(now: at(1), limit: 3, leaseFor: .seconds(30), worker: live)
        #expect(try await store.heartbeat(live, view: nil, now: at(25)))
        let rescuer = try await store.registerWorker(host: "h", pid: 3, now: at(31))
        let report = try await store.rescueStaleWorkers(now: at(31), staleAfter: .seconds(30), except: rescuer)
        #expect(report.workers == [dead] && report.deliveries == 3)
        let again = try await store.claim(now: at(31), limit: 100, leaseFor: .seconds(30), worker: rescuer)
        #expect(Set(again.map(\.id)).isSuperset(of: lost.map(\.id)))
        #expect(Set(again.map(\.id)).isDisjoint(with: kept.map(\.id)))
        #expect(again.filter { lost.map(\.id).contains($0.id) }.allSatisfy { $0.attempts == 0 })
        // The dead worker comes back: its heartbeat says it lost everything; its late retry changes nothing,
        // its late final answer is still the truth.
        #expect(try await !store.heartbeat(dead, view: nil, now: at(32)))
        let late = try await store.record(
            [
                .retry(lost[0], at: at(90), httpStatus: 503, reason: .serviceUnavailable),
                .accepted(lost[1], apnsID: nil),
            ], by: dead, now: at(33))
        #expect(late.ignored == 1 && late.applied == 1)
        let rows = try await store.allLog(LogFilter(campaign: campaign))
        #expect(rows.first { $0.id == lost[0].id }?.status == .pending)
        #expect(
            try await store.scalar("SELECT leased_by FROM deliveries WHERE id = \(lost[0].id.rawValue)")
                == rescuer.rawValue)
    }

    @Test(arguments: Engine.all) func aDeadWorkersRowSaysWhichProcessItWasAndItsLeasesAreTakenOver(
        engine: Engine
    ) async throws {
        let (store, database, _) = try await prepared(engine)
        defer { database.remove() }
        let process = ProcessIdentity(
            host: "h", pid: 4242, bootID: "0d3f1c2e-boot", pidNamespace: 4_026_531_836, startTime: 123_456)
        let dead = try await store.registerWorker(process, now: at(0))
        let live = try await store.registerWorker(host: "h", pid: 2, now: at(0))
        let lost = try await store.claim(now: at(1), limit: 3, leaseFor: .seconds(30), worker: dead)
        let kept = try await store.claim(now: at(1), limit: 2, leaseFor: .seconds(30), worker: live)
        let workers = try await store.workers()
        #expect(workers.map(\.process) == [process, ProcessIdentity(host: "h", pid: 2)])
        #expect(workers.map(\.leases) == [3, 2])
        // Its heartbeat is fresh, but its process is gone: taken over at once, once (a second rescuer finds no row).
        let report = try await store.takeOver([dead], now: at(2))
        #expect(report.workers == [dead] && report.deliveries == 3)
        #expect(try await store.takeOver([dead], now: at(2)) == RescueReport())
        #expect(try await store.workers().map(\.id) == [live])
        let again = try await store.claim(now: at(2), limit: 100, leaseFor: .seconds(30), worker: live)
        #expect(Set(again.map(\.id)).isSuperset(of: lost.map(\.id)))
        #expect(Set(again.map(\.id)).isDisjoint(with: kept.map(\.id)))
        #expect(again.allSatisfy { $0.attempts == 0 })
    }

    @Test(arguments: Engine.all) func releaseAndUnregisterFreeOnlyTheirOwnLeases(engine: Engine) async throws {
        let (store, database, _) = try await prepared(engine)
        defer { database.remove() }
        let a = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        let b = try await store.registerWorker(host: "h", pid: 2, now: at(0))
        let mine = try await store.claim(now: at(1), limit: 4, leaseFor: .seconds(30), worker: a)
        let theirs = try await store.claim(now: at(1), limit: 4, leaseFor: .seconds(30), worker: b)
        #expect(try await store.release(theirs.map(\.id), by: a, now: at(2)) == 0)
        #expect(try await store.release([mine[0].id], by: a, now: at(2)) == 1)
        #expect(try await store.unregisterWorker(a, now: at(3)) == 3)
        #expect(try await store.workers().map(\.id) == [b])
        let next = try await store.claim(now: at(3), limit: 100, leaseFor: .seconds(30), worker: b)
        let all = Set(try await store.allLog(LogFilter()).map(\.id))
        #expect(Set(next.map(\.id)) == all.subtracting(theirs.map(\.id)), "A's four and the two never claimed")
    }

    @Test(arguments: Engine.all) func cancelWaitsForLiveWorkersAndCountsWhatWasOnTheWire(engine: Engine) async throws {
        let (store, database, campaign) = try await prepared(engine)
        defer { database.remove() }
        let a = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        _ = try await store.registerWorker(host: "h", pid: 2, now: at(-100))  // stale: not waited for
        let jobs = try await store.claim(now: at(1), limit: 5, leaseFor: .seconds(30), worker: a)
        let request = try #require(try await store.requestCancel(campaign, now: at(2)))
        #expect(try await store.workersYetToAcknowledge(request, now: at(2), staleAfter: .seconds(30)) == [a])
        #expect(try await store.cancelRequests(after: 0) == [request])
        #expect(try await store.openCancelRequests() == [request])
        try await store.acknowledgeCancels([(request, 2)], upTo: request.seq, by: a)
        #expect(try await store.workersYetToAcknowledge(request, now: at(2), staleAfter: .seconds(30)).isEmpty)
        let report = try await store.finishCancel(campaign, request: request, unacknowledged: 0, now: at(3))
        #expect(report.cancelled == 10 && report.inFlight == 2 && !report.wasFinished)
        #expect(report.campaign.status == .cancelled && report.campaign.counters.cancelled == 10)
        #expect(try await store.openCancelRequests().isEmpty)
        // An answer for a request that was on the wire replaces `cancelled`.
        _ = try await store.record([.accepted(jobs[0], apnsID: nil)], by: a, now: at(4))
        let after = try await store.campaign(campaign)
        #expect(after.counters.accepted == 1 && after.counters.cancelled == 9)
        #expect(try await store.requestCancel(campaign, now: at(5)) == nil, "already cancelled")
    }

    @Test(arguments: Engine.all) func aHalfDoneCancelIsFinishedByTheNextTakeover(engine: Engine) async throws {
        let (store, database, campaign) = try await prepared(engine)
        defer { database.remove() }
        #expect(try await store.requestCancel(campaign, now: at(1)) != nil)
        let worker = try await store.registerWorker(host: "h", pid: 1, now: at(2))
        #expect(
            try await store.rescueStaleWorkers(now: at(20), staleAfter: .seconds(30), except: worker).cancelsFinished
                == 0)
        #expect(
            try await store.rescueStaleWorkers(now: at(32), staleAfter: .seconds(30), except: worker).cancelsFinished
                == 1)
        #expect(try await store.campaign(campaign).status == .cancelled)
        #expect(try await store.openCancelRequests().isEmpty)
    }

    @Test(arguments: Engine.all) func requeueSendsFailedDeliveriesAgainWithFreshAttempts(engine: Engine) async throws {
        let (store, database, campaign) = try await prepared(engine, devices: 3)
        defer { database.remove() }
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(30), worker: nil)
        _ = try await store.record(
            jobs.map { DeliveryResult($0, disposition: .failed, reason: .serviceUnavailable) }, by: nil, now: at(2))
        #expect(try await store.campaign(campaign).status == .completed)
        #expect(try await store.requeue(campaign, status: .failed, now: at(3)) == 3)
        let c = try await store.campaign(campaign)
        #expect(c.status == .running && c.counters.pending == 3 && c.counters.failed == 0 && c.finishedAt == nil)
        let again = try await store.claim(now: at(3), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(again.count == 3 && again.allSatisfy { $0.attempts == 0 })
        await #expect(throws: StoreError.self) { try await store.requeue(campaign, status: .accepted, now: at(4)) }
        _ = try await store.finishCancel(campaign, request: nil, unacknowledged: 0, now: at(5))
        await #expect(throws: StoreError.self) { try await store.requeue(campaign, status: .failed, now: at(6)) }
    }
}
