import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// The order of claims while a bulk backlog is being worked through: what makes single sends go ahead of bulk
/// (the worker sends what it claims, in claim order), decided here on a real SQLite file without any timing.
@Suite struct ClaimOrderTests {
    @Test(arguments: Engine.all) func singleSendsEnqueuedDuringABulkBacklogAreClaimedNextAndTheBacklogResumes(
        engine: Engine
    ) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<200)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        var claimedBulk: [DeliveryJob] = []
        for batch in 0..<3 {
            let jobs = try await store.claim(
                now: at(Double(1 + batch)), limit: 20, leaseFor: .seconds(600), worker: nil)
            #expect(jobs.count == 20 && jobs.allSatisfy { $0.campaignID == campaign && $0.kind == .bulk })
            claimedBulk += jobs
        }
        // Two single sends arrive mid-backlog, later than every bulk row became due.
        let first = try await store.enqueueSingle(single(token(7)), now: at(10))
        let second = try await store.enqueueSingle(single(token(8)), now: at(11))
        let next = try await store.claim(now: at(12), limit: 20, leaseFor: .seconds(600), worker: nil)
        #expect(next.count == 20)
        #expect(next.prefix(2).map(\.campaignID) == [first, second], "single sends first, oldest first")
        #expect(next.prefix(2).allSatisfy { $0.kind == .single })
        let resumed = next.dropFirst(2).map(\.id)
        #expect(next.dropFirst(2).allSatisfy { $0.campaignID == campaign && $0.kind == .bulk })
        #expect(resumed == resumed.sorted(), "bulk work keeps its order")
        let alreadyClaimed = Set(claimedBulk.map(\.id))
        #expect(resumed.allSatisfy { !alreadyClaimed.contains($0) }, "no bulk delivery is claimed twice")
    }

    @Test(arguments: Engine.all) func aClaimOfOneTakesTheSingleSendOverAnEarlierDueBacklog(engine: Engine) async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<30)
        _ = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        // The bulk rows have been due for an hour; the single send for a moment.
        let send = try await store.enqueueSingle(single(token(3)), now: at(3600))
        let jobs = try await store.claim(now: at(3601), limit: 1, leaseFor: .seconds(30), worker: nil)
        #expect(jobs.map(\.campaignID) == [send])
        let rest = try await store.claim(now: at(3601), limit: 100, leaseFor: .seconds(30), worker: nil)
        #expect(rest.count == 30 && rest.allSatisfy { $0.kind == .bulk })
    }
}
