import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// `stats` on both engines: outcomes from the per-minute counters written with each batch, deactivations from the events by
/// time, one campaign from its deliveries — against a known log.
@Suite struct StatsTests {
    @Test(arguments: Engine.all) func aKnownLogGivesKnownFigures(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10, now: t0)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let worker = try await store.registerWorker(host: "h", pid: 1, now: t0)
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(60), worker: nil).sorted {
            $0.token! < $1.token!
        }
        // An hour ago: two accepted. Now: three accepted, a 429 to retry, a 410, a BadDeviceToken. Written by two
        // writers (on PostgreSQL, two shards of the per-minute counters, summed when read).
        _ = try await store.record(
            [.accepted(jobs[0], apnsID: nil), .accepted(jobs[1], apnsID: nil)], by: nil, now: at(60))
        let now = at(2 * 3600)
        _ = try await store.record(
            [
                .accepted(jobs[2], apnsID: nil), .accepted(jobs[3], apnsID: nil),
                .retry(jobs[5], at: now.addingTimeInterval(60), httpStatus: 429, reason: .tooManyRequests),
                .unregistered(jobs[6], reason: .unregistered, timestamp: nil),
            ], by: nil, now: now)
        _ = try await store.record(
            [.accepted(jobs[4], apnsID: nil), .badToken(jobs[7], reason: .badDeviceToken)], by: worker, now: now)
        // A single send waiting.
        _ = try await store.enqueueSingle(single(token(99)), now: now)

        let recent = try await store.stats(
            since: now.addingTimeInterval(-3600), campaign: nil, now: now.addingTimeInterval(1))
        #expect(
            recent.outcomes == [
                "accepted": ["none": 3], "retry": ["TooManyRequests": 1], "unregistered": ["Unregistered": 1],
                "rejected": ["BadDeviceToken": 1],
            ], "\(recent.outcomes)")
        #expect(recent.requests == 6 && recent.accepted == 3)
        #expect(recent.deactivations == ["Unregistered": 1, "BadDeviceToken": 1])
        #expect(recent.queue.pendingSingle == 1 && recent.queue.pendingBulk == 3)
        #expect(recent.campaign == nil)

        let all = try await store.stats(since: t0, campaign: nil, now: now.addingTimeInterval(1))
        #expect(all.outcomes["accepted"] == ["none": 5] && all.requests == 8)

        // One campaign: the final outcomes of its deliveries written in the window.
        let one = try await store.stats(since: t0, campaign: campaign, now: now.addingTimeInterval(1))
        #expect(
            one.outcomes == [
                "accepted": ["none": 5], "unregistered": ["Unregistered": 1], "rejected": ["BadDeviceToken": 1],
            ], "\(one.outcomes)")
        #expect(one.campaign?.id == campaign && one.deactivations.values.reduce(0, +) == 2)
        await #expect(throws: StoreError.self) { try await store.stats(since: t0, campaign: CampaignID(999), now: now) }

    }

    /// SQLite's plans.
    @Test func theQueriesUseTheirIndexes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let plans = try await store.read { db in
            try [
                "EXPLAIN QUERY PLAN SELECT status, reason, SUM(count), SUM(requests) FROM outcome_counts WHERE minute >= 1 GROUP BY 1, 2",
                "EXPLAIN QUERY PLAN SELECT COALESCE(reason, 'none'), COUNT(*) FROM events WHERE at >= 1 AND type = 'device.deactivated' AND (NULL IS NULL OR campaign_id = NULL) GROUP BY 1",
            ]
            .map { sql -> String in
                let statement = try db.prepare(sql)
                var details: [String] = []
                while try statement.step() { details.append(statement.string(3)) }
                return details.joined(separator: "; ")
            }
        }
        #expect(plans[0].contains("USING PRIMARY KEY") || plans[0].contains("SEARCH outcome_counts"), "\(plans[0])")
        #expect(plans[1].contains("events_by_time"), "\(plans[1])")
    }
}
