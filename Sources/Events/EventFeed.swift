import QueueModel
import Threads

/// The event feed behind `GET /v1/events`: a page of events at once when there are some, else a long poll that
/// waits without blocking a thread until events appear or the wait ends. Woken at once by `notify()` (this
/// process's store wrote events); events written by another process are seen by polling every `pollInterval`.
public final class EventFeed: Sendable {
    private let store: any EventStore
    private let pollInterval: Duration
    private let signal = WakeSignal()
    private let closed = Locked(false)

    /// A feed on `store`; call `notify()` when events are written (`attached(to:)` does it for you).
    public init(store: any EventStore, pollInterval: Duration = .milliseconds(100)) {
        self.store = store
        self.pollInterval = pollInterval
    }

    /// A feed woken by every commit of `store` that writes events.
    public static func attached(to store: any EventStore, pollInterval: Duration = .milliseconds(100)) async
        -> EventFeed
    {
        let feed = EventFeed(store: store, pollInterval: pollInterval)
        // Weakly: the store keeps its observers for its lifetime, and the feed keeps the store.
        await store.addEventObserver { [weak feed] in feed?.notify() }
        return feed
    }

    /// Wakes every waiting `events` call to look again.
    public func notify() { signal.signal() }

    /// Ends every long poll now and makes later ones return at once (a server stopping answers its waiting
    /// clients instead of holding them to its deadline).
    public func close() {
        closed.withLock { $0 = true }
        signal.signal()
    }

    /// Up to `limit` events after `after` (from the first when nil); when there are none, waits up to `wait` for
    /// some. Returns early, possibly empty, when the task is cancelled. `next` is the cursor to ask with next.
    public func events(after: EventID?, limit: Int, wait: Duration) async throws(StoreError) -> EventPage {
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while true {
            let seen = signal.generation
            let events = try await store.events(after: after, limit: limit)
            let now = clock.now
            if !events.isEmpty || now >= deadline || Task.isCancelled || closed.withLock({ $0 }) {
                return EventPage(events: events, next: events.last?.id ?? after ?? .start)
            }
            await signal.wait(since: seen, timeout: min(pollInterval, deadline - now))
        }
    }
}
