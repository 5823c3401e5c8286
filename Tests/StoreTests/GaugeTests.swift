import APNs
import Foundation
import QueueModel
import QueueRules
import Testing

@testable import Store

/// `gauges(now:)`: the counters kept by the store (SQLite: migration 0007's triggers; PostgreSQL: the campaigns'
/// sharded counters and device triggers) and the due index agree with counting the rows, through every write path
/// that moves them.
@Suite struct GaugeTests {
    /// The gauges as a full count of the rows would give them.
    private func counted(_ store: AnyStore, _ engine: Engine, now: Date) async throws -> QueueGauges {
        let (active, inactive) = engine == .sqlite ? ("active = 1", "active = 0") : ("active", "NOT active")
        let ms = now.storeMilliseconds
        func age(_ priorityClass: Int) async throws -> Double {
            let oldest = try await store.scalar(
                """
                SELECT MIN(COALESCE(due_at, next_attempt_at)) FROM deliveries
                WHERE status = 'pending' AND priority_class = \(priorityClass) AND COALESCE(due_at, next_attempt_at) <= \(ms)
                """)
            return oldest.map { Double(ms - $0) / 1000 } ?? 0
        }
        return QueueGauges(
            pendingSingle: Int(
                try await store.scalar(
                    "SELECT count(*) FROM deliveries WHERE status = 'pending' AND priority_class = 0")!),
            pendingBulk: Int(
                try await store.scalar(
                    "SELECT count(*) FROM deliveries WHERE status = 'pending' AND priority_class = 1")!),
            oldestDueAgeSingle: try await age(0), oldestDueAgeBulk: try await age(1),
            activeDevices: Int(try await store.scalar("SELECT count(*) FROM devices WHERE \(active)")!),
            inactiveDevices: Int(try await store.scalar("SELECT count(*) FROM devices WHERE \(inactive)")!),
            webhookBacklog: Int(
                try await store.scalar(
                    """
                    SELECT count(*) FROM events WHERE id > COALESCE((SELECT event_id FROM webhook_cursor WHERE id = 1), 0)
                    """)!))
    }

    @Test(arguments: Engine.all) func gaugesFollowEveryWritePath(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        #expect(
            try await store.gauges(now: at(0))
                == QueueGauges(
                    pendingSingle: 0, pendingBulk: 0, oldestDueAgeSingle: 0, oldestDueAgeBulk: 0,
                    activeDevices: 0, inactiveDevices: 0))

        try await store.registerDevices(0..<50)
        try await store.execute(
            """
            UPDATE devices SET active = \(engine == .sqlite ? "0" : "false"), deactivated_at = 1, reason = 'Unregistered' WHERE id % 5 = 0
            """)
        try await store.registerDevices(0..<5, now: at(1))  // re-registers token 4 (id 5): active again
        try await store.execute("DELETE FROM devices WHERE id IN (2, 10)")
        var gauges = try await store.gauges(now: at(1))
        #expect(gauges.activeDevices == 40 && gauges.inactiveDevices == 8)
        #expect(gauges == (try await counted(store, engine, now: at(1))))

        let campaign = try await store.createCampaign(bulk(.all()), now: at(2))
        try await store.expandAll(now: at(2))
        for n in 0..<3 { _ = try await store.enqueueSingle(single(token(n)), now: at(3)) }
        gauges = try await store.gauges(now: at(12))
        #expect(gauges.pendingSingle == 3 && gauges.pendingBulk == 40 && gauges.oldestDueAge == 10)
        #expect(gauges.oldestDueAgeSingle == 9 && gauges.oldestDueAgeBulk == 10)
        #expect(gauges == (try await counted(store, engine, now: at(12))))

        let worker = try await store.registerWorker(host: "h", pid: 1, now: at(13))
        let jobs = try await store.claim(now: at(13), limit: 10, leaseFor: .seconds(30), worker: worker)
        #expect(jobs.count == 10)
        gauges = try await store.gauges(now: at(14))
        #expect(gauges.pendingSingle == 3 && gauges.pendingBulk == 40, "leased rows are still pending")
        #expect(gauges == (try await counted(store, engine, now: at(14))))

        _ = try await store.record(
            [.accepted(jobs[0], apnsID: nil), .accepted(jobs[4], apnsID: nil)], by: worker, now: at(15))
        _ = try await store.record(
            [
                .unregistered(jobs[5], reason: .unregistered, timestamp: nil),
                .retry(jobs[6], at: at(100), httpStatus: 429, reason: .tooManyRequests),
            ], by: worker, now: at(15))
        gauges = try await store.gauges(now: at(16))
        #expect(gauges.pendingSingle + gauges.pendingBulk == 43 - 3)
        #expect(gauges.webhookBacklog == 1, "the 410's deactivation event")
        #expect(gauges == (try await counted(store, engine, now: at(16))))

        let request = try #require(try await store.requestCancel(campaign, now: at(17)))
        _ = try await store.finishCancel(campaign, request: request, unacknowledged: 0, now: at(17))
        gauges = try await store.gauges(now: at(18))
        #expect(gauges.pendingBulk == 0)
        #expect(gauges == (try await counted(store, engine, now: at(18))))
        await store.close()
    }

    /// The oldest due delivery per class counts from when it first became due while a worker holds it: leased,
    /// held for a paused credential, released unsent; a retry after an answer, a paused campaign and a future send
    /// time are not due. Every step agrees with reading the rows.
    @Test(arguments: Engine.all) func leasedAndHeldDeliveriesStayDue(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10)
        func expectAges(_ single: Double, _ bulk: Double, at seconds: Double, _ comment: Comment) async throws {
            let gauges = try await store.gauges(now: at(seconds))
            #expect(gauges.oldestDueAgeSingle == single && gauges.oldestDueAgeBulk == bulk, comment)
            #expect(gauges == (try await counted(store, engine, now: at(seconds))), comment)
        }
        var later = single(token(1))
        later.scheduledAt = at(5000)
        _ = try await store.enqueueSingle(later, now: at(0))
        _ = try await store.enqueueSingle(single(token(0)), now: at(10))
        try await expectAges(90, 0, at: 100, "waiting; a future send time is not due")

        let worker = try await store.registerWorker(host: "h", pid: 1, now: at(20))
        var jobs = try await store.claim(now: at(20), limit: 10, leaseFor: .seconds(30), worker: worker)
        #expect(jobs.count == 1 && jobs[0].dueAt == at(10))
        try await expectAges(90, 0, at: 100, "leased (as through an outage)")
        var held = DeliveryResult.retry(jobs[0], at: at(500), httpStatus: 403, reason: .invalidProviderToken)
        held.countsAsAttempt = false
        held.held = true
        _ = try await store.record([held], by: worker, now: at(30))
        try await expectAges(90, 0, at: 100, "held for a paused credential")
        jobs = try await store.claim(now: at(600), limit: 10, leaseFor: .seconds(30), worker: worker)
        #expect(jobs.count == 1 && jobs[0].dueAt == at(10), "claimed again: due since it first was")
        _ = try await store.release(jobs.map(\.id), by: worker, now: at(610))
        try await expectAges(690, 0, at: 700, "released unsent")
        jobs = try await store.claim(now: at(620), limit: 10, leaseFor: .seconds(30), worker: worker)
        _ = try await store.record(
            [.retry(jobs[0], at: at(650), httpStatus: 429, reason: .tooManyRequests)], by: worker, now: at(630))
        try await expectAges(50, 0, at: 700, "a retry after an answer is due at its new time")
        jobs = try await store.claim(now: at(700), limit: 10, leaseFor: .seconds(30), worker: worker)
        #expect(jobs.count == 1 && jobs[0].dueAt == at(650))
        _ = try await store.record([.accepted(jobs[0], apnsID: nil)], by: worker, now: at(710))

        let campaign = try await store.createCampaign(bulk(.all()), now: at(1000))
        try await store.expandAll(now: at(1000))
        jobs = try await store.claim(now: at(1010), limit: 3, leaseFor: .seconds(30), worker: worker)
        #expect(jobs.count == 3 && jobs.allSatisfy { $0.kind == .bulk && $0.dueAt == at(1000) })
        try await expectAges(0, 30, at: 1030, "bulk rows leased and waiting")
        _ = try await store.pauseCampaign(campaign, now: at(1040))
        try await expectAges(0, 0, at: 1050, "a paused campaign's rows are not due, leased ones included")
        _ = try await store.release(jobs.map(\.id), by: worker, now: at(1060))
        try await expectAges(0, 0, at: 1070, "released while paused: parked")
        _ = try await store.resumeCampaign(campaign, now: at(1080))
        try await expectAges(0, 10, at: 1090, "resumed: due from then")
        await store.close()
    }

    /// SQLite only: PostgreSQL's schema had its counters from its first migration.
    @Test func theMigrationCountsWhatAnOlderFileHolds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let older = try await Store.open(at: folder.databasePath)
        // The file as 0004 left it: no counters, no triggers; then rows written without them.
        try await older.execute(
            """
            DROP TABLE gauge_counts;
            DROP TRIGGER gauge_campaign_inserted; DROP TRIGGER gauge_campaign_pending; DROP TRIGGER gauge_campaign_deleted;
            DROP TRIGGER gauge_device_inserted; DROP TRIGGER gauge_device_state; DROP TRIGGER gauge_device_deleted;
            DELETE FROM schema_migrations WHERE id = '0007-gauges';
            """)
        try await older.registerDevices(0..<30)
        try await older.execute("UPDATE devices SET active = 0 WHERE id <= 4")
        _ = try await older.createCampaign(bulk(.all()), now: at(1))
        try await older.expandAll(now: at(1))
        _ = try await older.enqueueSingle(single(token(99)), now: at(2))
        await older.close()

        let store = try await Store.open(at: folder.databasePath)
        let gauges = try await store.gauges(now: at(3))
        #expect(
            gauges
                == QueueGauges(
                    pendingSingle: 1, pendingBulk: 26, oldestDueAgeSingle: 1, oldestDueAgeBulk: 2, activeDevices: 26,
                    inactiveDevices: 4))
        #expect(gauges == (try await counted(store, .sqlite, now: at(3))))
        await store.close()
    }

    @Test func theOldestDueDeliveryIsReadFromTheDueIndex() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        try await store.execute("ANALYZE")
        let plan = try await store.read { db in
            let statement = try db.prepare(
                """
                EXPLAIN QUERY PLAN SELECT MIN(next_attempt_at) FROM deliveries WHERE status = 'pending' AND leased_by IS NULL AND priority_class = 1
                """)
            var details: [String] = []
            while try statement.step() { details.append(statement.string(3)) }
            return details
        }
        #expect(plan.count == 1 && plan[0].contains("deliveries_due") && !plan[0].hasPrefix("SCAN"), "\(plan)")
        let held = try await store.read { db in
            let statement = try db.prepare(
                """
                EXPLAIN QUERY PLAN SELECT MIN(due_at) FROM deliveries WHERE status = 'pending' AND priority_class = 1 AND due_at IS NOT NULL
                """)
            var details: [String] = []
            while try statement.step() { details.append(statement.string(3)) }
            return details
        }
        #expect(held.count == 1 && held[0].contains("deliveries_due_at") && !held[0].hasPrefix("SCAN"), "\(held)")
        await store.close()
    }
}
