import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

@Suite struct DurabilityTests {
    @Test func aSecondStoreOnTheSameFileSeesCommittedWrites() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try await Store.open(at: folder.databasePath)
        try await writer.register(DeviceRegistration(token: token(1), topic: topic, user: "alice"), now: t0)
        let id = try await writer.enqueueSingle(single(token(1)), now: t0)
        // The writer stays open (its WAL not checkpointed); a second connection, as another process would, reads.
        #expect(FileManager.default.fileExists(atPath: folder.databasePath + "-wal"))
        let reader = try await Store.open(at: folder.databasePath)
        #expect(try await reader.device(token: token(1), topic: topic)?.user == "alice")
        #expect(try await reader.campaign(id).counters.total == 1)

        // And the other way round: the second one claims, the first one sees the lease.
        let jobs = try await reader.claim(now: at(1), limit: 10, leaseFor: .seconds(30))
        #expect(jobs.count == 1)
        #expect(try await writer.claim(now: at(2), limit: 10, leaseFor: .seconds(30)).isEmpty)
        try await reader.record([.accepted(jobs[0], apnsID: nil)], now: at(3))
        #expect(try await writer.campaign(id).status == .completed)
    }

    @Test func writesSurviveReopeningWithoutAnOrderlyClose() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            let store = try await Store.open(at: folder.databasePath)
            try await store.registerDevices(0..<100)
            try await store.createCampaign(bulk(.all()), now: t0)
            // No close(): the actor is dropped, as if the process had gone away after its commits.
        }
        let reopened = try await Store.open(at: folder.databasePath)
        #expect(try await reopened.deviceCount() == 100)
        #expect(try await reopened.campaigns().count == 1)
    }
}

@Suite struct LockingTests {
    @Test func aWriteBlockedLongerThanTheBusyTimeoutFailsWithDatabaseLocked() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let holder = try await Store.open(at: folder.databasePath)
        let waiter = try await Store.open(at: folder.databasePath, options: .init(busyTimeout: .milliseconds(100)))
        try await holder.execute("BEGIN IMMEDIATE")  // another process in the middle of a write
        await #expect(throws: StoreError.databaseLocked(path: folder.databasePath)) {
            try await waiter.register(DeviceRegistration(token: token(1), topic: topic), now: t0)
        }
        #expect(try await waiter.deviceCount() == 0)  // reading is not blocked
        try await holder.execute("COMMIT")
        try await waiter.register(DeviceRegistration(token: token(1), topic: topic), now: t0)
        #expect(try await holder.deviceCount() == 1)
    }

    @Test func aWriteWaitsForALockReleasedWithinTheBusyTimeout() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let holder = try await Store.open(at: folder.databasePath)
        let waiter = try await Store.open(at: folder.databasePath, options: .init(busyTimeout: .seconds(30)))
        try await holder.execute("BEGIN IMMEDIATE")
        let write = Task { try await waiter.register(DeviceRegistration(token: token(1), topic: topic), now: t0) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await holder.deviceCount() == 0, "still waiting for the lock")
        try await holder.execute("COMMIT")
        _ = try await write.value
        #expect(try await holder.deviceCount() == 1)
    }
}
