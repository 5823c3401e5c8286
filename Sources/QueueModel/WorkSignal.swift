import Synchronization

/// New work was committed in this process: a producer calls `notify()` after an enqueue, and a worker sharing the
/// signal claims at its next turn instead of at its poll interval. Another process's commits are seen through
/// `DeliveryStore.changeCount()` instead: this is the in-process path, where that count does not move (one
/// connection serves both sides).
public final class WorkSignal: Sendable {
    private let generation = Atomic<UInt64>(0)

    public init() {}

    /// Work was committed (call after the transaction, so the worker's claim sees it).
    public func notify() {
        generation.add(1, ordering: .releasing)
    }

    /// Moves at every `notify()`; a worker compares it with the value it last saw.
    public var current: UInt64 { generation.load(ordering: .acquiring) }
}
