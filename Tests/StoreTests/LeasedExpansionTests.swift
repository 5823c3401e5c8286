import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// A worker's expansion page comes leased to it, as a claim would lease it (`expandDueCampaigns(leasing:)`): the
/// rules of SCHEMA.md ("Workers and leases") hold for its rows as for claimed ones, on both engines.
@Suite struct LeasedExpansionTests {
    let lease = Duration.seconds(30)

    /// Expands with leases for `worker` until the campaigns are expanded; the jobs it got.
    func expandAll(_ store: AnyStore, for worker: WorkerID, limit: Int, now: Date) async throws -> [DeliveryJob] {
        var jobs: [DeliveryJob] = []
        while true {
            let report = try await store.expandDueCampaigns(
                now: now, pageSize: 5000, leasing: limit, leaseFor: lease, worker: worker)
            #expect(report.jobs.count <= limit)
            jobs += report.jobs
            jobs += try await store.claim(now: now, limit: limit, leaseFor: lease, worker: worker)
            if !report.moreRemaining && report.jobs.isEmpty { return jobs }
        }
    }

    @Test(arguments: Engine.all) func aLeasedPageIsItsWorkersOnlyAndEveryDeliveryIsSentOnce(engine: Engine) async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<2500)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        let a = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        let b = try await store.registerWorker(host: "h", pid: 2, now: at(0))

        let first = try await store.expandDueCampaigns(
            now: at(1), pageSize: 5000, leasing: 1000, leaseFor: lease, worker: a)
        #expect(first.pages == 1 && first.jobs.count == 1000)
        #expect(first.startedCampaigns == [id])
        #expect(first.jobs.allSatisfy { $0.campaignID == id && $0.attempts == 0 && $0.dueAt == t0 })
        #expect(Set(first.jobs.map(\.id)).count == 1000)
        // What A holds is nobody else's: B gets only what the page left due (the page may be larger than A's share).
        let other = try await store.claim(now: at(1), limit: 5000, leaseFor: lease, worker: b)
        #expect(Set(other.map(\.id)).isDisjoint(with: first.jobs.map(\.id)))
        #expect(try await store.workers().map(\.leases) == [1000, other.count])
        #expect(try await store.campaign(id).status == .running)
        // The first page counted the whole audience: progress and the pending gauge see all of it at once.
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 2500, pending: 2500))
        #expect(try await store.gauges(now: at(1)).pendingBulk == 2500)

        let rest = try await expandAll(store, for: b, limit: 1000, now: at(2))
        let sent = first.jobs + other + rest
        #expect(sent.count == 2500 && Set(sent.map(\.token)).count == 2500)
        _ = try await store.record(first.jobs.map { .accepted($0, apnsID: nil) }, by: a, now: at(3))
        _ = try await store.record((other + rest).map { .accepted($0, apnsID: nil) }, by: b, now: at(3))
        let campaign = try await store.campaign(id)
        #expect(campaign.counters.accepted == 2500 && campaign.counters.pending == 0)
        #expect(campaign.status == .completed)
    }

    @Test(arguments: Engine.all) func aDeadWorkersLeasedPageIsTakenOverAndSentByAnother(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<1500)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        let dead = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        let held = try await store.expandDueCampaigns(
            now: at(1), pageSize: 5000, leasing: 600, leaseFor: lease, worker: dead)
        #expect(held.jobs.count == 600)

        // The dead worker stops heartbeating; another takes its leases over and sends its page too.
        let live = try await store.registerWorker(host: "h", pid: 2, now: at(100))
        let rescue = try await store.rescueStaleWorkers(now: at(100), staleAfter: lease, except: live)
        #expect(rescue.workers == [dead] && rescue.deliveries == 600)
        let sent = try await expandAll(store, for: live, limit: 1000, now: at(100))
        #expect(sent.count == 1500 && Set(sent.map(\.id)).isSuperset(of: held.jobs.map(\.id)))
        #expect(sent.first { $0.id == held.jobs[0].id }?.dueAt == t0, "it has been due since the campaign's time")
        _ = try await store.record(sent.map { .accepted($0, apnsID: nil) }, by: live, now: at(101))
        #expect(try await store.campaign(id).counters.accepted == 1500)
        // The dead worker's late answer for a row another worker sent changes nothing.
        let late = try await store.record([.accepted(held.jobs[0], apnsID: nil)], by: dead, now: at(102))
        #expect(try await store.campaign(id).counters.accepted == 1500, "\(late)")
    }

    /// Devices deactivated after the count are not sent, and the campaign's counters still add up: on SQLite, whose
    /// pages are written as they are sent, the last page drops them from the total (and a device registered
    /// meanwhile is sent and counted); PostgreSQL, which had written them, cancels them at the claim.
    @Test(arguments: Engine.all) func theCountFollowsTheDevicesChangedWhileTheCampaignSends(engine: Engine) async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<1000)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        let a = try await store.registerWorker(host: "h", pid: 1, now: at(0))
        let first = try await store.expandDueCampaigns(
            now: at(1), pageSize: 5000, leasing: 100, leaseFor: lease, worker: a)
        #expect(first.jobs.count == 100)
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 1000, pending: 1000))
        try await store.execute("UPDATE devices SET active = false WHERE id > 900")
        try await store.registerDevices(5000..<5001)

        let sent = try await first.jobs + expandAll(store, for: a, limit: 100, now: at(2))
        #expect(Set(sent.map(\.token)).isDisjoint(with: (900..<1000).map { token($0) }))
        _ = try await store.record(sent.map { .accepted($0, apnsID: nil) }, by: a, now: at(3))
        let campaign = try await store.campaign(id)
        let c = campaign.counters
        #expect(c.accepted == sent.count && c.pending == 0 && c.total == c.accepted + c.cancelled, "\(c)")
        if engine == .sqlite { #expect(c == CampaignCounters(total: 901, accepted: 901)) }
        #expect(campaign.status == .completed)
        #expect(try await store.gauges(now: at(3)).pendingBulk == 0)
    }

    /// A token of an inactive device is inserted cancelled and leased to nobody; unregistered tokens are sent.
    @Test(arguments: Engine.all) func aTokensPageLeasesOnlyWhatIsToBeSent(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic), now: t0)
        _ = try await store.register(DeviceRegistration(token: token(2), topic: topic), now: t0)
        try await store.execute("UPDATE devices SET active = false WHERE token = '\(token(2).hex)'")
        let id = try await store.createCampaign(bulk(.tokens([token(1), token(2), token(99)])), now: t0)
        let a = try await store.registerWorker(host: "h", pid: 1, now: at(0))

        let jobs = try await expandAll(store, for: a, limit: 10, now: at(1))
        #expect(Set(jobs.map(\.token)) == [token(1), token(99)])
        #expect(try await store.workers().map(\.leases) == [2])
        let counters = try await store.campaign(id).counters
        #expect(counters.total == 3 && counters.cancelled == 1 && counters.pending == 2)
        #expect(try await store.releaseLeases(now: at(2)) == 2, "only the rows to send were leased")
    }
}
