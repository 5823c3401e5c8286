import APNs
import Foundation
import QueueModel
import Testing
@testable import Store

/// Temporary (helper H1): timings on PostgreSQL. Deleted before the report.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["H1_SCRATCH"] != nil)) struct H1ScratchTests {
    @Test func importAMillionAndEnqueueBatches() async throws {
        let database = try TestDatabase(.postgres)
        defer { database.remove() }
        let store = try await database.open()
        let registrations = (0..<1_000_000).map { DeviceRegistration(token: token($0), topic: topic, user: $0 % 3 == 0 ? nil : "u\($0 % 50_000)") }
        var start = Date()
        #expect(try await store.importDevices(registrations, now: t0, commitEvery: 100_000) == 1_000_000)
        print("H1: import 1M: \(Date().timeIntervalSince(start)) s")
        start = Date()
        _ = try await store.importDevices(Array(registrations[0..<200_000]), now: at(1), commitEvery: 100_000)
        print("H1: re-import 200k: \(Date().timeIntervalSince(start)) s")
        #expect(try await store.deviceCount(active: nil) == 1_000_000)
        let specs = (0..<1000).map { single(token($0 * 7)) }
        start = Date()
        let result = try await store.enqueue([EnqueueRequest(specs: specs)], now: at(2))
        print("H1: enqueue 1000 singles: \(Date().timeIntervalSince(start)) s")
        let enqueued = try result[0].get()
        #expect(enqueued.ids == enqueued.ids.sorted() && enqueued.ids.count == 1000)
        start = Date()
        for n in 0..<200 { _ = try await store.enqueue([EnqueueRequest(specs: [single(token(n))])], now: at(3)) }
        print("H1: 200 enqueues of one: \(Date().timeIntervalSince(start)) s")
        let users = (0..<100).map { "u\($0)" }
        start = Date()
        let id = try await store.enqueueSingle(CampaignSpec(kind: .single, audience: .users(users), content: single(token(0)).content), now: at(4))
        print("H1: single to 100 users: \(Date().timeIntervalSince(start)) s, \(try await store.campaign(id).counters)")
    }
}
