import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

@Suite struct RecordTests {
    /// A store with devices 0..<count registered at t0 and a bulk campaign to all of them, claimed at t0+1.
    private func claimedCampaign(_ database: TestDatabase, devices count: Int) async throws -> (
        AnyStore, CampaignID, [DeliveryJob]
    ) {
        let store = try await database.open()
        try await store.registerDevices(0..<count, now: t0)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: at(1), limit: count, leaseFor: .seconds(60), worker: nil)
        #expect(jobs.count == count)
        return (store, id, jobs.sorted { $0.token! < $1.token! })
    }

    @Test(arguments: Engine.all) func unregisteredOlderThanTheRegistrationKeepsTheDeviceActive(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let (store, _, jobs) = try await claimedCampaign(database, devices: 3)
        let registeredMS = Int64(t0.timeIntervalSince1970 * 1000)
        let report = try await store.record(
            [
                // Registered after the 410: stays; registered before: goes; no timestamp: goes.
                .unregistered(jobs[0], reason: .unregistered, timestamp: registeredMS - 1000),
                .unregistered(jobs[1], reason: .unregistered, timestamp: registeredMS + 1000),
                .unregistered(jobs[2], reason: .expiredToken, timestamp: nil),
            ], by: nil, now: at(2))
        #expect(report.applied == 3)
        #expect(report.devicesDeactivated == 2)

        let kept = try #require(try await store.device(token: jobs[0].token!, topic: topic))
        #expect(kept.isActive)
        let gone = try #require(try await store.device(token: jobs[1].token!, topic: topic))
        #expect(!gone.isActive)
        #expect(gone.reason == .unregistered)
        #expect(gone.deactivatedAt == at(2))
        #expect(try await store.device(token: jobs[2].token!, topic: topic)?.reason == .expiredToken)
        // The delivery says what APNs said either way.
        let entries = try await store.allLog(LogFilter(status: .unregistered))
        #expect(entries.count == 3)
        #expect(entries.allSatisfy { $0.httpStatus == 410 && $0.attempts == 1 })
    }

    @Test(arguments: Engine.all) func badDeviceTokenDeactivatesForThatTopicOnly(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let (store, id, jobs) = try await claimedCampaign(database, devices: 2)
        _ = try await store.register(DeviceRegistration(token: jobs[0].token!, topic: otherTopic), now: t0)
        _ = try await store.record(
            [
                .badToken(jobs[0], reason: .badDeviceToken),
                .badToken(jobs[1], reason: .deviceTokenNotForTopic),
            ], by: nil, now: at(2))
        #expect(try await store.device(token: jobs[0].token!, topic: topic)?.isActive == false)
        #expect(try await store.device(token: jobs[0].token!, topic: topic)?.reason == .badDeviceToken)
        #expect(try await store.device(token: jobs[1].token!, topic: topic)?.reason == .deviceTokenNotForTopic)
        #expect(try await store.device(token: jobs[0].token!, topic: otherTopic)?.isActive == true)
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 2, rejected: 2))
        // An inactive device is never sent to again.
        _ = try await store.createCampaign(bulk(.all()), now: at(3))
        try await store.expandAll(now: at(3))
        #expect(try await store.claim(now: at(3), limit: 10, leaseFor: .seconds(30), worker: nil).isEmpty)
    }

    @Test(arguments: Engine.all) func retrySetsNextAttemptAndCountsTheAttempt(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let (store, id, jobs) = try await claimedCampaign(database, devices: 1)
        _ = try await store.record(
            [.retry(jobs[0], at: at(60), httpStatus: 429, reason: .tooManyRequests)], by: nil, now: at(2))
        let entry = try #require(try await store.log(LogFilter(campaign: id), after: nil, limit: 10).first)
        #expect(entry.status == .pending)
        #expect(entry.attempts == 1)
        #expect(entry.nextAttemptAt == at(60))
        #expect(entry.httpStatus == 429)
        #expect(entry.reason == .tooManyRequests)
        #expect(try await store.claim(now: at(59), limit: 10, leaseFor: .seconds(30), worker: nil).isEmpty)
        let again = try await store.claim(now: at(60), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(again.map(\.id) == [jobs[0].id])
        #expect(again[0].attempts == 1)
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 1, pending: 1))
    }

    @Test(arguments: Engine.all) func countersFollowOutcomesAndTheCampaignCompletes(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let (store, id, jobs) = try await claimedCampaign(database, devices: 6)
        let first = try await store.record(
            [
                .accepted(jobs[0], apnsID: "123e4567-e89b-12d3-a456-426614174000"),
                .accepted(jobs[1], apnsID: nil),
                DeliveryResult(jobs[2], disposition: .rejected, httpStatus: 400, reason: .badTopic),
                .unregistered(jobs[3], reason: .unregistered, timestamp: nil),
                DeliveryResult(jobs[4], disposition: .failed, httpStatus: 503, reason: .serviceUnavailable),
            ], by: nil, now: at(2))
        #expect(first.completedCampaigns.isEmpty)
        var campaign = try await store.campaign(id)
        #expect(campaign.status == .running)
        #expect(
            campaign.counters
                == CampaignCounters(total: 6, pending: 1, accepted: 2, rejected: 1, unregistered: 1, failed: 1))

        // A duplicate result (e.g. after a lease expired) changes nothing.
        let duplicate = try await store.record([.accepted(jobs[2], apnsID: nil)], by: nil, now: at(3))
        #expect(duplicate.ignored == 1)

        let last = try await store.record([.accepted(jobs[5], apnsID: nil)], by: nil, now: at(4))
        #expect(last.completedCampaigns == [id])
        campaign = try await store.campaign(id)
        #expect(campaign.status == .completed)
        #expect(campaign.finishedAt == at(4))
        #expect(
            campaign.counters
                == CampaignCounters(total: 6, pending: 0, accepted: 3, rejected: 1, unregistered: 1, failed: 1))
        // The counters agree with the rows.
        for status in DeliveryStatus.allCases {
            #expect(try await store.allLog(LogFilter(campaign: id, status: status)).count == campaign.counters[status])
        }
        let accepted = try await store.allLog(LogFilter(token: jobs[0].token!))
        #expect(accepted.first?.apnsID == "123e4567-e89b-12d3-a456-426614174000")
    }

    @Test(arguments: Engine.all) func unknownDeliveryIsIgnored(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let stranger = DeliveryJob(
            id: DeliveryID(999), campaignID: CampaignID(1), kind: .bulk, token: token(1), environment: .production,
            content: bulk(.all()).content, attempts: 0, deviceRegisteredAt: nil, leasedUntil: t0)
        let report = try await store.record([.accepted(stranger, apnsID: nil)], by: nil, now: t0)
        #expect(report.applied == 0)
        #expect(report.ignored == 1)
    }

    @Test(arguments: Engine.all) func aResultNamingAnotherCampaignChangesNothing(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let (store, id, jobs) = try await claimedCampaign(database, devices: 1)
        let other = try await store.createCampaign(bulk(.all()), now: t0)
        var misfiled = jobs[0]
        misfiled.campaignID = other
        let report = try await store.record([.accepted(misfiled, apnsID: nil)], by: nil, now: at(2))
        #expect(report.applied == 0)
        #expect(report.ignored == 1)
        #expect(try await store.campaign(id).counters.pending == 1)
        #expect(try await store.campaign(other).counters.accepted == 0)
        // The right result still lands.
        #expect(try await store.record([.accepted(jobs[0], apnsID: nil)], by: nil, now: at(3)).applied == 1)
        #expect(try await store.campaign(id).counters.accepted == 1)
    }

    /// One result at a time: a 410 older than the registration keeps the device, the next answer for the same
    /// device (another campaign's delivery) in the same batch deactivates it, and only that one writes its event.
    @Test(arguments: Engine.all) func aDeviceNamedTwiceInABatchIsDeactivatedByItsFirstAnswerThatQualifies(
        engine: Engine
    ) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<1, now: t0)
        _ = try await store.createCampaign(bulk(.all()), now: t0)
        _ = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(60), worker: nil).sorted {
            $0.id < $1.id
        }
        #expect(jobs.count == 2)
        let registeredMS = Int64(t0.timeIntervalSince1970 * 1000)
        let report = try await store.record(
            [
                .unregistered(jobs[0], reason: .unregistered, timestamp: registeredMS - 1000),
                .unregistered(jobs[1], reason: .expiredToken, timestamp: registeredMS + 1000),
            ], by: nil, now: at(2))
        #expect(report.applied == 2 && report.devicesDeactivated == 1)
        #expect(try await store.device(token: token(0), topic: topic)?.reason == .expiredToken)
        let events = try await store.events(after: nil, limit: 10)
        #expect(events.map(\.deliveryID) == [jobs[1].id])
    }
}
