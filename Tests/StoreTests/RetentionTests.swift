import APNs
import Foundation
import QueueModel
import QueueRules
import TestSupport
import Testing

@testable import PostgresStore
@testable import Store

/// `RetentionStore.prune` on both engines: old finished deliveries and stale devices go, campaigns keep their counts,
/// pending work is untouched, and (SQLite) the file gives its free pages back.
@Suite struct RetentionTests {
    private func day(_ n: Double) -> Date { at(n * 86_400) }

    /// The campaign rows of `ids`, as `campaign show` reads them.
    private func campaigns(_ store: AnyStore, _ ids: [CampaignID]) async throws -> [Campaign] {
        var result: [Campaign] = []
        for id in ids { result.append(try await store.campaign(id)) }
        return result
    }

    /// Every gauge recounted from the rows equals the kept counter.
    private func expectGaugesExact(_ store: AnyStore, _ engine: Engine) async throws {
        let (active, inactive) = engine == .sqlite ? ("active = 1", "active = 0") : ("active", "NOT active")
        let gauges = try await store.gauges(now: day(100))
        #expect(gauges.activeDevices == Int(try await store.scalar("SELECT count(*) FROM devices WHERE \(active)")!))
        #expect(
            gauges.inactiveDevices == Int(try await store.scalar("SELECT count(*) FROM devices WHERE \(inactive)")!))
        #expect(
            gauges.pendingBulk
                == Int(
                    try await store.scalar(
                        "SELECT count(*) FROM deliveries WHERE status = 'pending' AND priority_class = 1")!))
        #expect(
            gauges.pendingSingle
                == Int(
                    try await store.scalar(
                        "SELECT count(*) FROM deliveries WHERE status = 'pending' AND priority_class = 0")!))
        if engine == .sqlite {  // PostgreSQL has no device_users: user audiences read devices.user_id
            #expect(
                try await store.scalar(
                    "SELECT count(*) FROM device_users WHERE device_id NOT IN (SELECT id FROM devices)") == 0)
        }
    }

    @Test(arguments: Engine.all) func finishedRunningAndCancelledCampaignsKeepTheirCounts(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(1..<31, user: { "u\($0)" }, now: day(0))
        let worker = try await store.registerWorker(host: "h", pid: 1, now: day(0))

        // A: finished on day 0 (20 accepted, 5 unregistered, 5 rejected: devices 21–30 deactivated).
        let a = try await store.createCampaign(bulk(.all()), now: day(0))
        try await store.expandAll(now: day(0))
        let jobsA = try await store.claim(now: day(0), limit: 30, leaseFor: .seconds(30), worker: worker)
        try #require(jobsA.count == 30)
        _ = try await store.record(
            jobsA[0..<20].map { .accepted($0, apnsID: nil) }
                + jobsA[20..<25].map { .unregistered($0, reason: .unregistered, timestamp: nil) }
                + jobsA[25..<30].map { .badToken($0, reason: .badDeviceToken) }, by: worker, now: day(0))
        // B: running (10 accepted on day 1, 5 leased, 5 waiting); C: cancelled on day 1; D: a single send waiting.
        let b = try await store.createCampaign(bulk(.all()), now: day(1))
        try await store.expandAll(now: day(1))
        let jobsB = try await store.claim(now: day(1), limit: 15, leaseFor: .seconds(30), worker: worker)
        try #require(jobsB.count == 15)
        _ = try await store.record(jobsB[0..<10].map { .accepted($0, apnsID: nil) }, by: worker, now: day(1))
        let c = try await store.createCampaign(bulk(.all()), now: day(1))
        try await store.expandAll(now: day(1))
        let request = try #require(try await store.requestCancel(c, now: day(1)))
        _ = try await store.finishCancel(c, request: request, unacknowledged: 0, now: day(1))
        let d = try await store.enqueueSingle(single(token(999)), now: day(1))
        // Devices 1–10 and a new one registered again on day 5; device 11 deactivated on day 3.
        try await store.registerDevices(1..<11, now: day(5))
        try await store.registerDevices(31..<32, now: day(5))
        _ = try await store.deactivateDevice(token: token(11), topic: topic, reason: .removed, now: day(3))

        let ids = [a, b, c, d]
        let before = try await campaigns(store, ids)
        #expect(before.map(\.status) == [.completed, .running, .cancelled, .running])
        #expect(try await store.scalar("SELECT count(*) FROM deliveries") == 30 + 20 + 20 + 1)

        // A dry run counts and changes nothing.
        let dry = try await store.prune(
            deliveriesBefore: day(0.5), devicesBefore: day(2), dryRun: true, batch: 7, pause: .zero)
        #expect(dry.deliveries == 30 && dry.devices == 19 && dry.inactiveDevices == 10)
        #expect(try await store.scalar("SELECT count(*) FROM deliveries") == 71)
        #expect(try await store.scalar("SELECT count(*) FROM devices") == 31)

        // Day-0 deliveries (all of A) go; devices 12–20 (active, not registered again) and 21–30 (deactivated on day
        // 0) go; 1–10 and 31 (registered on day 5) and 11 (deactivated on day 3) stay.
        let first = try await store.prune(
            deliveriesBefore: day(0.5), devicesBefore: day(2), dryRun: false, batch: 7, pause: .zero)
        #expect(first.deliveries == 30 && first.devices == 19 && first.inactiveDevices == 10)
        #expect(first.steps > 10, "7 ids per transaction")
        #expect(try await campaigns(store, ids) == before, "campaigns keep their counters and status")
        #expect(try await store.scalar("SELECT count(*) FROM devices") == 12)
        // By token, not id: PostgreSQL's identity may skip ids (an INSERT … ON CONFLICT that updates takes one).
        let kept = try await store.devices(active: nil, after: nil, limit: 100).map(\.token)
        #expect(Set(kept) == Set(((1...11) + [31]).map { token($0) }))
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE campaign_id = \(a.rawValue)") == 0)
        try await expectGaugesExact(store, engine)
        // C's finished row of a removed device stays in the log under its token (B's pending row keeps the device's
        // id until it is claimed and cancelled).
        let ofRemoved = try await store.allLog(LogFilter(token: token(12)))
        #expect(ofRemoved.map(\.campaignID) == [c])
        #expect(
            try await store.scalar(
                """
                SELECT CASE WHEN device_id IS NULL THEN 1 ELSE 0 END FROM deliveries WHERE campaign_id = \(c.rawValue) AND token = '\(token(12).hex)'
                """) == 1)

        // A month later: B's and C's finished rows go too; pending rows (B's leased and waiting ones, D) stay.
        let second = try await store.prune(
            deliveriesBefore: day(10), devicesBefore: day(2), dryRun: false, batch: 7, pause: .zero)
        #expect(second.deliveries == 10 + 20 && second.devices == 0)
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE status <> 'pending'") == 0)
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE status = 'pending'") == 11)
        #expect(try await campaigns(store, ids) == before)
        try await expectGaugesExact(store, engine)

        // The worker goes on: B's leased rows are recorded; its waiting rows of removed devices are cancelled at
        // claim (DeviceInactive), and B completes with exact counts.
        _ = try await store.record(jobsB[10..<15].map { .accepted($0, apnsID: nil) }, by: worker, now: day(40))
        let later = try await store.claim(now: day(40), limit: 100, leaseFor: .seconds(30), worker: worker)
        #expect(later.map(\.campaignID) == [d], "only D is sent: the devices of B's waiting rows are gone")
        let finalB = try await store.campaign(b)
        #expect(finalB.status == .completed)
        #expect(
            finalB.counters.total == 20 && finalB.counters.accepted == 15 && finalB.counters.cancelled == 5
                && finalB.counters.pending == 0)
        try await expectGaugesExact(store, engine)
        await store.close()
    }

    @Test(arguments: Engine.all) func theNewestRowsAreKeptSoThatNoIdIsGivenTwice(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(1..<3, now: day(0))
        let worker = try await store.registerWorker(host: "h", pid: 1, now: day(0))
        _ = try await store.createCampaign(bulk(.all()), now: day(0))
        try await store.expandAll(now: day(0))
        let jobs = try await store.claim(now: day(0), limit: 10, leaseFor: .seconds(30), worker: worker)
        _ = try await store.record(jobs.map { .accepted($0, apnsID: nil) }, by: worker, now: day(0))
        let report = try await store.prune(
            deliveriesBefore: day(40), devicesBefore: day(40), dryRun: false, pause: .zero)
        #expect(report.deliveries == 1 && report.devices == 1)
        #expect(try await store.scalar("SELECT id FROM deliveries") == 2)
        #expect(try await store.scalar("SELECT id FROM devices") == 2)
        await store.close()
    }

    /// SQLite only (PostgreSQL: `postgresLeavesSpaceToAutovacuumAndBackupsToItsOwnTools`).
    @Test func freePagesGoBackToTheFilesystem() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        #expect(try await store.freeSpace().incremental, "a new file is created in incremental-vacuum mode")
        let campaign = try await store.createCampaign(bulk(.tokens([token(1)])), now: day(0))
        // 20,000 finished rows of day 0, written directly (the API would take far longer to make them).
        try await store.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, attempts,
                                    next_attempt_at, http_status, created_at, updated_at)
            SELECT \(campaign.rawValue), NULL, printf('%064x', i), 'production', 1, 'accepted', 1, 0, 200, \(day(0).storeMilliseconds), \(day(0).storeMilliseconds) FROM n;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        let pagesBefore = try await store.freeSpace().pageCount
        let report = try await store.prune(
            deliveriesBefore: day(30), devicesBefore: day(30), dryRun: false, pause: .zero)
        #expect(report.deliveries == 19_999)
        #expect(report.pagesReclaimed > pagesBefore / 2 && report.space.freePages == 0)
        #expect(report.space.pageCount + report.pagesReclaimed <= pagesBefore)

        // A file made before: no incremental vacuum until converted once.
        try await store.execute("PRAGMA auto_vacuum = NONE; VACUUM;")
        #expect(try await !store.freeSpace().incremental)
        #expect(try await store.reclaimFreePages(upTo: 100) == 0)
        try await store.enableIncrementalVacuum()
        #expect(try await store.freeSpace().incremental)
        await store.close()
    }

    @Test(arguments: Engine.all) func aRemovedDevicesRowThatWouldCollideWithItsTokensRowKeepsTheOldID(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(1..<2, now: day(0))
        let campaign = try await store.createCampaign(bulk(.all()), now: day(0))
        try await store.expandAll(now: day(0))
        let jobs = try await store.claim(now: day(0), limit: 10, leaseFor: .seconds(30), worker: nil)
        _ = try await store.record(jobs.map { .accepted($0, apnsID: nil) }, by: nil, now: day(0))
        // The same campaign also has a finished row for the bare token (written directly: no API path makes one).
        try await store.execute(
            """
            INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, attempts,
                                    next_attempt_at, http_status, created_at, updated_at)
            VALUES (\(campaign.rawValue), NULL, '\(token(1).hex)', 'production', 1, 'accepted', 1, 0, 200,
                    \(day(0).storeMilliseconds), \(day(0).storeMilliseconds))
            """)
        try await store.registerDevices(2..<3, now: day(5))  // the newest device, kept whatever its age
        let removedID = try #require(try await store.scalar("SELECT id FROM devices WHERE token = '\(token(1).hex)'"))
        let report = try await store.prune(
            deliveriesBefore: day(-1), devicesBefore: day(2), dryRun: false, pause: .zero)
        #expect(report.devices == 1 && report.deliveries == 0)
        // Detaching it would give the campaign two rows for the bare token: it keeps the removed device's id.
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE device_id = \(removedID)") == 1)
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE device_id IS NULL") == 1)
        #expect(
            try await store.allLog(LogFilter(token: token(1))).count == 1,
            "the token's row; the other has no device to find it by")
        await store.close()
    }

    @Test(.enabled(if: PostgresCluster.enabled)) func postgresLeavesSpaceToAutovacuumAndBackupsToItsOwnTools()
        async throws
    {
        let store = try await PostgresStore.open(url: try PostgresCluster.shared.createDatabase())
        let space = try await store.freeSpace()
        #expect(!space.incremental && space.freePages == 0 && space.pageSize >= 4096 && space.pageCount > 0, "\(space)")
        #expect(try await store.reclaimFreePages(upTo: 1_000) == 0)
        try await store.enableIncrementalVacuum()
        let report = try await store.prune(
            deliveriesBefore: day(30), devicesBefore: day(30), dryRun: false, pause: .zero)
        #expect(report.pagesReclaimed == 0 && report.space.freePages == 0 && !report.space.incremental)

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("copy.sqlite").path
        await #expect(
            throws: StoreError.backupFailed(
                path, "a PostgreSQL database is backed up with pg_dump (or the server's own backups), not by apnsd")
        ) {
            _ = try await store.backup(to: path)
        }
        #expect(
            !FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + ".partial"))
        await store.close()
    }
}
