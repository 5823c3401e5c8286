import Events
import Foundation
import QueueModel
import Store
import Testing

@Suite struct EventFeedTests {
    @Test func eventsThatExistComeAtOnceAndTheCursorMovesOn() async throws {
        let temporary = try await TemporaryStore()
        let feed = EventFeed(store: temporary.store)
        for n in 0..<3 { try await temporary.store.writeEvent(n) }
        let first = try #require(
            try await returned { try await feed.events(after: nil, limit: 2, wait: .seconds(3600)) })
        #expect(first.events.map(\.token) == [token(0), token(1)] && first.next == first.events[1].id)
        let second = try #require(
            try await returned { try await feed.events(after: first.next, limit: 2, wait: .seconds(3600)) })
        #expect(second.events.map(\.token) == [token(2)] && second.next == second.events[0].id)
        await temporary.remove()
    }

    @Test func anEmptyFeedWaitsTheWholeWaitAndKeepsTheCursor() async throws {
        let temporary = try await TemporaryStore()
        let feed = EventFeed(store: temporary.store, pollInterval: .milliseconds(20))
        let start = ContinuousClock.now
        let page = try await feed.events(after: EventID(7), limit: 10, wait: .milliseconds(300))
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        #expect(page.events.isEmpty && page.next == EventID(7))
        #expect(try await feed.events(after: nil, limit: 10, wait: .zero).next == .start)
        await temporary.remove()
    }

    @Test func aWriteInThisProcessWakesAWaiterAtOnce() async throws {
        let temporary = try await TemporaryStore()
        // Polling so rare that only the store's notification can explain a quick answer.
        let feed = EventFeed(store: temporary.store, pollInterval: .seconds(3600))
        let store = temporary.store
        let writer = Task {
            try await Task.sleep(for: .milliseconds(200))
            try await store.writeEvent(1)
        }
        let page = try #require(
            try await returned { try await feed.events(after: nil, limit: 10, wait: .seconds(3600)) })
        #expect(page.events.map(\.token) == [token(1)])
        try await writer.value
        await temporary.remove()
    }

    @Test func anotherProcessesWritesAreFoundByPolling() async throws {
        let temporary = try await TemporaryStore()
        let feed = EventFeed(store: temporary.store, pollInterval: .milliseconds(50))
        // A second store object on the same file stands for another process: its commits notify nobody here.
        let other = try await Store.open(at: temporary.path)
        let writer = Task {
            try await Task.sleep(for: .milliseconds(200))
            try await other.writeEvent(2)
        }
        let page = try #require(
            try await returned { try await feed.events(after: nil, limit: 10, wait: .seconds(3600)) })
        #expect(page.events.map(\.token) == [token(2)])
        try await writer.value
        await other.close()
        await temporary.remove()
    }

    @Test func cancellingAWaiterEndsItPromptly() async throws {
        let temporary = try await TemporaryStore()
        let feed = EventFeed(store: temporary.store, pollInterval: .seconds(3600))
        let waiter = Task { try await feed.events(after: nil, limit: 10, wait: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(100))
        waiter.cancel()
        let page = try #require(try await returned { try await waiter.value })
        #expect(page.events.isEmpty)
        await temporary.remove()
    }
}
