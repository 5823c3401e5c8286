import APNs
import Foundation
import QueueModel
import Testing

@testable import PostgresStore
@testable import Store

@Suite struct ClaimTests {
    @Test(arguments: Engine.all) func singleSendsAreClaimedBeforeBulkWork(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<50)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        // The single send is created later than the bulk rows became due, and still goes first.
        let send = try await store.enqueueSingle(single(token(7)), now: at(5))
        let jobs = try await store.claim(now: at(6), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(jobs.count == 10)
        #expect(jobs[0].campaignID == send)
        #expect(jobs[0].kind == .single)
        #expect(jobs[0].token == token(7))
        #expect(jobs[1...].allSatisfy { $0.campaignID == campaign && $0.kind == .bulk })
        #expect(jobs[1...].map(\.id) == jobs[1...].map(\.id).sorted())
        #expect(jobs[0].content.payload == payload("single"))
        #expect(jobs[1].content.payload == payload())
        #expect(jobs[1].content.bundleID == topic)
        #expect(jobs[1].content.priority == .immediate)
        #expect(jobs[1].deviceRegisteredAt == t0)
        #expect(jobs[1].leasedUntil == at(36))
        #expect(try await store.campaign(send).status == .running)
    }

    @Test(arguments: Engine.all) func leasedDeliveriesAreNotClaimedAgainUntilTheLeaseExpires(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<8)
        _ = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)

        let first = try await store.claim(now: at(1), limit: 5, leaseFor: .seconds(30), worker: nil)
        #expect(first.count == 5)
        let second = try await store.claim(now: at(2), limit: 5, leaseFor: .seconds(30), worker: nil)
        #expect(second.count == 3)
        #expect(Set(first.map(\.id)).isDisjoint(with: second.map(\.id)))
        #expect(try await store.claim(now: at(30), limit: 10, leaseFor: .seconds(30), worker: nil).isEmpty)
        #expect(try await store.nextDueDate() == at(31))

        let expired = try await store.claim(now: at(31), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(Set(expired.map(\.id)) == Set(first.map(\.id)))
        #expect(expired.allSatisfy { $0.attempts == 0 })
    }

    @Test(arguments: Engine.all) func restartedWorkerResumesAfterReleasingLeases(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        var store = try await database.open()
        try await store.registerDevices(0..<6)
        _ = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let inFlight = try await store.claim(now: at(1), limit: 4, leaseFor: .seconds(300), worker: nil)
        _ = try await store.record([.accepted(inFlight[0], apnsID: nil)], by: nil, now: at(2))
        await store.close()  // the worker dies with three requests in flight

        store = try await database.open()
        // Releasing every lease is a tool's call, not the worker's protocol: each engine has its own.
        let released =
            if let sqlite = store as? Store {
                try await sqlite.releaseLeases(now: at(3))
            } else {
                try await (store as! PostgresStore).releaseLeases(now: at(3))
            }
        #expect(released == 3)
        let resumed = try await store.claim(now: at(3), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(resumed.count == 5)
        #expect(Set(inFlight[1...].map(\.id)).isSubset(of: resumed.map(\.id)))
        #expect(!resumed.map(\.id).contains(inFlight[0].id))
    }

    @Test(arguments: Engine.all) func deviceDeactivatedAfterExpansionIsSkipped(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<3)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        try await store.execute("UPDATE devices SET active = false WHERE token = '\(token(1).hex)'")

        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(Set(jobs.map(\.token)) == [token(0), token(2)])
        let skipped = try #require(try await store.allLog(LogFilter(token: token(1))).first)
        #expect(skipped.status == .cancelled)
        #expect(skipped.reason?.rawValue == "DeviceInactive")
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 3, pending: 2, cancelled: 1))
    }

    @Test(arguments: Engine.all) func unregisteredTokenIsSentInTheGivenEnvironmentWithoutRegisteringIt(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.enqueueSingle(single(token(1), environment: .development), now: t0)
        _ = try await store.enqueueSingle(single(token(2)), now: t0)
        let jobs = try await store.claim(now: t0, limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(jobs.map(\.token) == [token(1), token(2)])
        #expect(jobs.map(\.environment) == [.development, .production])
        #expect(jobs.allSatisfy { $0.deviceRegisteredAt == nil })
        #expect(try await store.deviceCount(active: nil) == 0)
    }

    @Test(arguments: Engine.all) func singleSendToAnInactiveDeviceIsLoggedAsCancelledAndCompletes(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<1)
        try await store.execute("UPDATE devices SET active = false, deactivated_at = 0, reason = 'Unregistered'")
        let id = try await store.enqueueSingle(single(token(0)), now: t0)
        let campaign = try await store.campaign(id)
        #expect(campaign.status == .completed)
        #expect(campaign.counters == CampaignCounters(total: 1, cancelled: 1))
        #expect(
            try await store.log(LogFilter(campaign: id), after: nil, limit: 10).first?.reason?.rawValue
                == "DeviceInactive")
        #expect(try await store.claim(now: t0, limit: 10, leaseFor: .seconds(30), worker: nil).isEmpty)
    }

    @Test(arguments: Engine.all) func singleSendToAUserGoesToTheirActiveDevices(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<6, user: { $0 < 3 ? "alice" : "bob" })
        try await store.execute("UPDATE devices SET active = false WHERE token = '\(token(2).hex)'")
        var spec = bulk(.users(["alice"]))
        spec.kind = .single
        let id = try await store.enqueueSingle(spec, now: t0)
        #expect(try await store.campaign(id).counters.total == 2)
        let jobs = try await store.claim(now: t0, limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(Set(jobs.map(\.token)) == [token(0), token(1)])
    }

}

extension ClaimTests {
    /// Decorrelated jitter draws a retry's delay from the one before it: a claimed retry carries the delay it
    /// waited (its due time minus when its answer was recorded); a first send carries none.
    @Test(arguments: Engine.all) func aRetryCarriesTheDelayItWaited(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<1)
        _ = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let first = try await store.claim(now: t0, limit: 1, leaseFor: .seconds(30), worker: nil)[0]
        #expect(first.previousDelay == nil)
        _ = try await store.record(
            [.retry(first, at: at(7.5), httpStatus: 503, reason: .serviceUnavailable)], by: nil, now: at(2))
        let second = try await store.claim(now: at(8), limit: 1, leaseFor: .seconds(30), worker: nil)[0]
        #expect(second.previousDelay == .milliseconds(5500))
    }

    /// A campaign whose rows are claimed while it is still `scheduled` (e.g. its status set back by hand) starts.
    @Test(arguments: Engine.all) func aClaimStartsTheScheduledCampaignsItTakesRowsOf(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<3)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        try await store.execute(
            "UPDATE campaigns SET status = 'scheduled', started_at = NULL WHERE id = \(id.rawValue)")
        #expect(try await store.claim(now: at(4), limit: 1, leaseFor: .seconds(30), worker: nil).count == 1)
        let campaign = try await store.campaign(id)
        #expect(campaign.status == .running && campaign.startedAt == at(4))
    }
}
