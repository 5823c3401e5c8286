import Synchronization

/// Something was committed in this process: a store fires its `commits` signal after each write transaction that
/// changed rows, and a worker on that store claims at its next turn instead of at its poll interval. Another
/// process's commits are seen through `DeliveryStore.changeCount()` instead: this is the in-process path, where
/// that count does not move (one connection serves both the producers and the worker).
public final class WorkSignal: Sendable {
    private let generation = Atomic<UInt64>(0)

    public init() {}

    /// Rows were committed (called after the transaction, so the worker's claim sees them).
    public func notify() {
        generation.add(1, ordering: .releasing)
    }

    /// Moves at every `notify()`; a worker compares it with the value it last saw.
    public var current: UInt64 { generation.load(ordering: .acquiring) }
}
