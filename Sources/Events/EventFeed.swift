import QueueModel
import Threads

/// The event feed behind `GET /v1/events`: a page of events at once when there are some, else a long poll that
/// waits without blocking a thread until events appear or the wait ends. Woken at once by the store's
/// `eventCommits` (this process wrote events); events written by another process are seen by polling every
/// `pollInterval`.
public final class EventFeed: Sendable {
    private let store: any EventStore
    private let pollInterval: Duration
    private let closed = Locked(false)

    /// A feed on `store`, woken by every commit of it that writes events.
    public init(store: any EventStore, pollInterval: Duration = .milliseconds(100)) {
        self.store = store
        self.pollInterval = pollInterval
    }

    /// Ends every long poll now and makes later ones return at once (a server stopping answers its waiting
    /// clients instead of holding them to its deadline).
    public func close() {
        closed.withLock { $0 = true }
        store.eventCommits.notify()
    }

    /// Up to `limit` events after `after` (from the first when nil); when there are none, waits up to `wait` for
    /// some. Returns early, possibly empty, when the task is cancelled. `next` is the cursor to ask with next.
    public func events(after: EventID?, limit: Int, wait: Duration) async throws(StoreError) -> EventPage {
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while true {
            let seen = store.eventCommits.current
            let events = try await store.events(after: after, limit: limit)
            let now = clock.now
            if !events.isEmpty || now >= deadline || Task.isCancelled || closed.withLock({ $0 }) {
                return EventPage(events: events, next: events.last?.id ?? after ?? .start)
            }
            await store.eventCommits.wait(whileAt: seen, timeout: min(pollInterval, deadline - now))
        }
    }

    /// The newest `limit` events, and the cursor to follow them with (the feed's start when there is none).
    public func latest(limit: Int) async throws(StoreError) -> EventPage {
        let events = try await store.latestEvents(limit: limit)
        return EventPage(events: events, next: events.last?.id ?? .start)
    }
}
