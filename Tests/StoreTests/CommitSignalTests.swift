import Foundation
import QueueModel
import Testing

@testable import Store

/// `Store.commits` moves after a write transaction that changed rows (what wakes a worker on the same store), and
/// `changeCount()` moves only for another connection's commits.
@Suite struct CommitSignalTests {
    @Test func commitsMoveOnWritesThatChangeRowsOnly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        var seen = store.commits.current
        _ = try await store.enqueueSingle(single(token(1)), now: at(0))
        #expect(store.commits.current != seen, "an enqueue")
        seen = store.commits.current
        _ = try await store.campaigns(kind: nil, status: nil, before: nil, limit: 10)
        _ = try await store.claim(now: at(-10), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(store.commits.current == seen, "a read, and a claim that found nothing due")
        await store.close()
    }

    @Test func theChangeCountMovesForOtherConnectionsOnly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let before = try await store.changeCount()
        _ = try await store.enqueueSingle(single(token(1)), now: at(0))
        #expect(try await store.changeCount() == before, "its own write")
        let other = try await Store.open(at: folder.databasePath)
        _ = try await other.enqueueSingle(single(token(2)), now: at(0))
        await other.close()
        #expect(try await store.changeCount() != before, "another connection's write")
        await store.close()
    }
}
