import Synchronization
import Threads

/// Something was committed in this process: the one in-process wake-up, awaited by any number of tasks. A store
/// fires its `commits` signal after each write transaction that changed rows (a worker on it claims at once instead
/// of at its poll interval) and its `eventCommits` signal after each that wrote events (the event feed's long polls
/// and the webhook wake). Another process's commits are seen through `DeliveryStore.changeCount()` or polling
/// instead: this is the in-process path, where that count does not move (one connection serves everyone).
public final class WorkSignal: Sendable {
    private let generation = Atomic<UInt64>(0)
    /// A pthread lock (`Locked`), not `Mutex`: a contended `Mutex` is taken inside the kernel, out of the
    /// ThreadSanitizer pass's sight, which then reported the waiters' table as raced.
    private let waiters = Locked<(next: Int, waiting: [Int: CheckedContinuation<Void, Never>])>((0, [:]))

    public init() {}

    /// Rows were committed (called after the transaction, so the worker's claim sees them).
    public func notify() {
        generation.add(1, ordering: .releasing)
        let woken = waiters.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting.values
        }
        for waiter in woken { waiter.resume() }
    }

    /// Moves at every `notify()`; a worker compares it with the value it last saw.
    public var current: UInt64 { generation.load(ordering: .acquiring) }

    /// Returns once `current` is no longer `seen`, after `timeout`, or when the task is cancelled.
    public func wait(whileAt seen: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.wait(whileAt: seen) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once `current` is no longer `seen` (at once if it already moved), or the task is cancelled.
    public func wait(whileAt seen: UInt64) async {
        let id = waiters.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = waiters.withLock { state in
                    if current != seen || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            waiters.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
    }
}
