import APNs
import Foundation
import QueueModel
import TestSupport
import Testing

@testable import Store

/// Several workers on one queue at the same time, each with its own connection (as on several hosts): claims,
/// expansion and records that race never hand out a delivery twice, never expand a row twice, and never miss a
/// campaign's completion.
@Suite struct ConcurrentClaimTests {
    /// Claims batches of `batch` for `worker` until nothing is due; returns every delivery id it got.
    private func claimAll(_ store: AnyStore, worker: WorkerID, batch: Int) async throws -> [DeliveryJob] {
        var claimed: [DeliveryJob] = []
        while true {
            let jobs = try await store.claim(now: at(1), limit: batch, leaseFor: .seconds(30), worker: worker)
            claimed += jobs
            if jobs.isEmpty { return claimed }
        }
    }

    @Test(arguments: Engine.all) func twoWorkersClaimingOneCampaignConcurrentlyNeverGetTheSameDelivery(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let setup = try await database.open()
        try await setup.registerDevices(0..<600)
        let campaign = try await setup.createCampaign(bulk(.all()), now: t0)
        try await setup.expandAll(now: t0)
        let first = try await database.open()
        let second = try await database.open()
        let a = try await first.registerWorker(host: "a", pid: 1, now: t0)
        let b = try await second.registerWorker(host: "b", pid: 2, now: t0)

        async let claimedByA = claimAll(first, worker: a, batch: 7)
        async let claimedByB = claimAll(second, worker: b, batch: 11)
        let (jobsA, jobsB) = try await (claimedByA, claimedByB)
        let idsA = Set(jobsA.map(\.id))
        let idsB = Set(jobsB.map(\.id))
        #expect(idsA.count == jobsA.count && idsB.count == jobsB.count, "no worker gets a delivery twice")
        #expect(idsA.isDisjoint(with: idsB), "no delivery goes to both workers")
        #expect(idsA.count + idsB.count == 600, "every delivery is claimed")
        let workers = try await setup.workers()
        #expect(workers.map(\.leases) == [idsA.count, idsB.count])

        // Both record concurrently; whichever commits last sees the campaign done.
        async let recordedByA = first.record(jobsA.map { .accepted($0, apnsID: nil) }, by: a, now: at(2))
        async let recordedByB = second.record(jobsB.map { .accepted($0, apnsID: nil) }, by: b, now: at(2))
        let (reportA, reportB) = try await (recordedByA, recordedByB)
        #expect(reportA.applied + reportB.applied == 600)
        #expect(reportA.completedCampaigns + reportB.completedCampaigns == [campaign])
        let done = try await setup.campaign(campaign)
        #expect(done.status == .completed && done.counters == CampaignCounters(total: 600, accepted: 600))
        if engine == .postgres {
            // The workers' counter shards were folded into shard 0 at completion.
            #expect(
                try await setup.scalar("SELECT COUNT(*) FROM campaign_counts WHERE campaign_id = \(campaign.rawValue)")
                    == 1)
        }
    }

    @Test(arguments: Engine.all) func workersExpandingConcurrentlyInsertEachDeliveryOnce(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let setup = try await database.open()
        try await setup.registerDevices(0..<900, user: { "user\($0 % 300)" })
        var campaigns: [CampaignID] = []
        campaigns.append(try await setup.createCampaign(bulk(.all()), now: t0))
        campaigns.append(try await setup.createCampaign(bulk(.users((0..<300).map { "user\($0)" })), now: t0))
        campaigns.append(try await setup.createCampaign(bulk(.tokens((0..<900).map { token($0) })), now: t0))
        let workers = [try await database.open(), try await database.open(), try await database.open()]

        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in workers {
                group.addTask {
                    // Until every campaign is expanded: one may be another worker's to expand for a moment.
                    while true {
                        if try await store.expandDueCampaigns(now: at(1), pageSize: 50, maxPages: 2).pages > 0 {
                            continue
                        }
                        let all = try await store.campaigns(kind: nil, status: nil, before: nil, limit: 10)
                        if all.allSatisfy(\.isExpanded) { return }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await setup.scalar("SELECT COUNT(*) FROM deliveries") == 2700)
        #expect(try await setup.scalar("SELECT COUNT(DISTINCT campaign_id || ':' || token) FROM deliveries") == 2700)
        for id in campaigns {
            let campaign = try await setup.campaign(id)
            #expect(campaign.isExpanded && campaign.counters == CampaignCounters(total: 900, pending: 900))
        }
    }

    @Test(arguments: Engine.all) func aCancelRacingTwoWorkersRecordsLeavesCountersThatAgreeWithTheRows(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let setup = try await database.open()
        try await setup.registerDevices(0..<400)
        let campaign = try await setup.createCampaign(bulk(.all()), now: t0)
        try await setup.expandAll(now: t0)
        let first = try await database.open()
        let second = try await database.open()
        let a = try await first.registerWorker(host: "a", pid: 1, now: t0)
        let b = try await second.registerWorker(host: "b", pid: 2, now: t0)
        let jobsA = try await first.claim(now: at(1), limit: 150, leaseFor: .seconds(30), worker: a)
        let jobsB = try await second.claim(now: at(1), limit: 150, leaseFor: .seconds(30), worker: b)

        async let recordedByA = first.record(jobsA.map { .accepted($0, apnsID: nil) }, by: a, now: at(2))
        async let recordedByB = second.record(
            jobsB.map { DeliveryResult($0, disposition: .failed, reason: .serviceUnavailable) },
            by: b, now: at(2))
        async let cancelled = setup.finishCancel(campaign, request: nil, unacknowledged: 0, now: at(2))
        let (reportA, reportB, cancel) = try await (recordedByA, recordedByB, cancelled)
        // Whatever the order, every answer lands (it replaces `cancelled`), and nothing is left pending.
        #expect(reportA.applied == 150 && reportB.applied == 150)
        #expect(cancel.cancelled >= 100)
        let done = try await setup.campaign(campaign)
        #expect(done.status == .cancelled)
        #expect(done.counters == CampaignCounters(total: 400, accepted: 150, failed: 150, cancelled: 100))
        for status in DeliveryStatus.allCases {
            #expect(
                try await setup.allLog(LogFilter(campaign: campaign, status: status)).count == done.counters[status])
        }
    }

    /// PostgreSQL checks a campaign's completion in a short transaction after a record's commit; when that check is
    /// lost (its connection dropped), the next rescue pass completes the campaign.
    @Test(.enabled(if: PostgresCluster.enabled)) func aLostCompletionCheckIsMadeUpForByTheNextRescue() async throws {
        let database = try TestDatabase(.postgres)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<3)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(30), worker: nil)
        _ = try await store.record(jobs.map { .accepted($0, apnsID: nil) }, by: nil, now: at(2))
        // As if the check had not run: done, but still running, its worker shard not folded.
        try await store.execute(
            "UPDATE campaigns SET status = 'running', finished_at = NULL WHERE id = \(campaign.rawValue)")
        try await store.execute(
            """
            INSERT INTO campaign_counts (campaign_id, shard, kind, pending, accepted) VALUES (\(campaign.rawValue), 5, 'bulk', 0, 0)
            """)
        _ = try await store.rescueStaleWorkers(now: at(3), staleAfter: .seconds(30), except: nil)
        let done = try await store.campaign(campaign)
        #expect(done.status == .completed && done.finishedAt == at(3))
        #expect(done.counters == CampaignCounters(total: 3, accepted: 3))
        #expect(
            try await store.scalar("SELECT COUNT(*) FROM campaign_counts WHERE campaign_id = \(campaign.rawValue)") == 1
        )
    }
}
