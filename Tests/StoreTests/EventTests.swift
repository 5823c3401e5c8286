import APNs
import Foundation
import QueueModel
import Testing
import Threads

@testable import Store

@Suite struct EventTests {
    @Test(arguments: Engine.all) func theRecordPathWritesDeactivationAndFailureEventsInTheSameTransaction(
        engine: Engine
    ) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<5, environment: .development, user: { "u\($0)" })
        let notified = store.eventCommits.current
        let campaign = try await store.createCampaign(bulk(.tokens((0..<6).map { token($0) })), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(30), worker: nil).sorted {
            $0.id < $1.id
        }
        #expect(jobs.count == 6)
        _ = try await store.record(
            [
                .accepted(jobs[0], apnsID: nil),
                .unregistered(jobs[1], reason: .unregistered, timestamp: nil),
                DeliveryResult(jobs[2], disposition: .failed, reason: .expired),
                .badToken(jobs[3], reason: .deviceTokenNotForTopic),
                .retry(jobs[4], at: at(60), httpStatus: 429, reason: .tooManyRequests),
                DeliveryResult(jobs[5], disposition: .failed, httpStatus: 503, reason: .serviceUnavailable),
            ], by: nil, now: at(2))
        #expect(store.eventCommits.current == notified + 1)
        let events = try await store.events(after: nil, limit: 500)
        #expect(events.map(\.type) == [.deviceDeactivated, .deviceDeactivated, .deliveryFailed, .deliveryFailed])
        #expect(events.map(\.token) == [token(1), token(3), token(2), token(5)])
        #expect(events.map(\.reason) == [.unregistered, .deviceTokenNotForTopic, .expired, .serviceUnavailable])
        #expect(events.map(\.deliveryID) == [jobs[1].id, jobs[3].id, jobs[2].id, jobs[5].id])
        #expect(events.allSatisfy { $0.campaignID == campaign && $0.topic == topic && $0.at == at(2) })
        // The unregistered token 5 has no device, hence no user; its environment is the delivery's.
        #expect(events.map(\.user) == ["u1", "u3", "u2", nil])
        #expect(events[0].environment == .development && events[3].environment == .production)
        #expect(events.map(\.id) == events.map(\.id).sorted())

        // Recording the same outcomes again (a duplicate) writes no more events.
        _ = try await store.record(
            [
                .unregistered(jobs[1], reason: .unregistered, timestamp: nil),
                DeliveryResult(jobs[2], disposition: .failed, reason: .expired),
            ], by: nil, now: at(3))
        #expect(try await store.events(after: nil, limit: 500).count == 4)
        #expect(store.eventCommits.current == notified + 1)
    }

    @Test(arguments: Engine.all) func pagingTheWebhookCursorAndPruning(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<6)
        for n in 0..<6 {
            _ = try await store.deactivateDevice(token: token(n), topic: topic, reason: .removed, now: at(Double(n)))
        }
        let first = try await store.events(after: nil, limit: 4)
        let rest = try await store.events(after: first.last?.id, limit: 4)
        #expect((first + rest).map(\.token) == (0..<6).map { token($0) })
        #expect(try await store.events(after: rest.last?.id, limit: 4).isEmpty)

        #expect(try await store.webhookCursor() == nil)
        try await store.advanceWebhookCursor(to: first[2].id, now: at(10))
        try await store.advanceWebhookCursor(to: first[1].id, now: at(11))
        #expect(try await store.webhookCursor() == first[2].id)

        // With a webhook, only acknowledged events older than the cutoff go: events 0 and 1 (2 is at 2 s, not before).
        #expect(try await store.pruneEvents(writtenBefore: at(2), keepUndelivered: true) == 2)
        #expect(try await store.pruneEvents(writtenBefore: at(100), keepUndelivered: true) == 1)
        #expect(try await store.events(after: nil, limit: 500).map(\.token) == [3, 4, 5].map { token($0) })
        // Without one, age alone; ids are never reused after everything was pruned.
        #expect(try await store.pruneEvents(writtenBefore: at(100), keepUndelivered: false) == 3)
        _ = try await store.register(DeviceRegistration(token: token(0), topic: topic), now: at(20))
        _ = try await store.deactivateDevice(token: token(0), topic: topic, reason: .removed, now: at(21))
        let after = try await store.events(after: rest.last?.id, limit: 10)
        #expect(after.count == 1 && after[0].id > rest[rest.count - 1].id)
    }

    @Test(arguments: Engine.all) func eventsSurviveReopening(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic), now: t0)
        _ = try await store.deactivateDevice(token: token(1), topic: topic, reason: .removed, now: at(1))
        let written = try await store.events(after: nil, limit: 500)
        #expect(written.map(\.id) == [EventID(1)])
        try await store.advanceWebhookCursor(to: written[0].id, now: at(2))
        await store.close()
        let reopened = try await database.open()
        #expect(try await reopened.events(after: nil, limit: 500).map(\.reason) == [.removed])
        #expect(try await reopened.webhookCursor() == EventID(1))
    }

    /// A failure is stored and replaced; parking records the batch, moves the cursor past it and ends the failure in
    /// one go; parked events count as acknowledged for pruning but stay readable until then; a batch is removed
    /// once, and a refusal of a parked batch is counted. The gauge's backlog starts after the parked batch.
    @Test(arguments: Engine.all) func webhookFailuresAndParkedBatches(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<5)
        for n in 0..<5 {
            _ = try await store.deactivateDevice(token: token(n), topic: topic, reason: .removed, now: at(Double(n)))
        }
        let ids = try await store.events(after: nil, limit: 10).map(\.id)
        #expect(try await store.webhookFailure() == nil)
        #expect(try await store.gauges(now: at(10)).webhookBacklog == 5)

        var failure = WebhookFailure(
            first: ids[0], last: ids[1], events: 2, attempts: 1, firstFailureAt: at(10), lastError: "HTTP 400",
            updatedAt: at(10))
        try await store.recordWebhookFailure(failure)
        failure.last = ids[2]
        failure.events = 3
        failure.attempts = 2
        failure.updatedAt = at(11)
        try await store.recordWebhookFailure(failure)
        #expect(try await store.webhookFailure() == failure)

        let parked = try #require(try await store.parkWebhookBatch(failure, now: at(3700)))
        #expect(parked.first == ids[0] && parked.last == ids[2] && parked.events == 3 && parked.attempts == 2)
        #expect(parked.firstFailureAt == at(10) && parked.parkedAt == at(3700) && parked.lastError == "HTTP 400")
        #expect(try await store.webhookCursor() == ids[2])
        #expect(try await store.webhookFailure() == nil)
        #expect(try await store.parkedWebhookBatches() == [parked])
        #expect(try await store.parkWebhookBatch(failure, now: at(3701)) == nil, "parked once: the cursor is past it")
        #expect(try await store.parkedWebhookBatches() == [parked])
        #expect(try await store.gauges(now: at(3700)).webhookBacklog == 2)
        #expect(try await store.events(after: nil, limit: 10).map(\.id) == ids, "parked events stay readable")

        // A failure of the next batch, ended when the cursor passes it.
        try await store.recordWebhookFailure(
            WebhookFailure(
                first: ids[3], last: ids[4], events: 2, attempts: 1, firstFailureAt: at(3701), lastError: "HTTP 500",
                updatedAt: at(3701)))
        try await store.advanceWebhookCursor(to: ids[4], now: at(3702))
        #expect(try await store.webhookFailure() == nil)

        try await store.recordParkedWebhookRefusal(id: parked.id, error: "HTTP 422")
        let refused = try await store.parkedWebhookBatches()
        #expect(refused.map(\.attempts) == [3] && refused.map(\.lastError) == ["HTTP 422"])
        // Retention: parked events are acknowledged, so a webhook's pruning takes them with the rest.
        #expect(try await store.pruneEvents(writtenBefore: at(3), keepUndelivered: true) == 3)
        #expect(try await store.removeParkedWebhookBatch(id: parked.id))
        #expect(try await !store.removeParkedWebhookBatch(id: parked.id))
        #expect(try await store.parkedWebhookBatches().isEmpty)
    }
}
