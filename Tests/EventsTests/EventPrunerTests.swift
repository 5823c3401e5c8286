import Events
import Foundation
import Logging
import QueueModel
import Testing

/// `apnsd serve` prunes events past their retention; with a webhook, only those it acknowledged.
@Suite struct EventPrunerTests {
    @Test func oldEventsGoAndUnacknowledgedOnesStayWhileAWebhookWaitsForThem() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        for n in 0..<3 { try await store.writeEvent(n) }
        let events = try await store.events(after: nil, limit: 10)
        try #require(events.count == 3)
        let logger = Logger(label: "test", sink: .none)
        let later = Date().addingTimeInterval(8 * 24 * 3600)

        let webhooked = EventPruner(store: store, keepUndelivered: true, logger: logger)
        #expect(try await webhooked.pruneOnce(now: Date()) == 0, "nothing is past the 7-day retention yet")
        #expect(try await webhooked.pruneOnce(now: later) == 0, "the webhook acknowledged none")
        try await store.advanceWebhookCursor(to: events[0].id, now: Date())
        #expect(try await webhooked.pruneOnce(now: later) == 1)
        #expect(try await store.events(after: nil, limit: 10).map(\.id) == events.dropFirst().map(\.id))

        let readersOnly = EventPruner(store: store, keepUndelivered: false, logger: logger)
        #expect(try await readersOnly.pruneOnce(now: later) == 2)
        #expect(try await store.events(after: nil, limit: 10).isEmpty)
        await temporary.remove()
    }
}
