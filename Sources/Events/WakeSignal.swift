import Threads

/// A wake-up that any number of tasks wait on, each with a timeout, without blocking a thread. A signal given
/// between reading `generation` and waiting is not lost: the wait returns at once.
final class WakeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Changes at every signal; read it before checking for work, then wait `since` it.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Wakes every waiter.
    func signal() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at the first signal after `seen`, after `timeout`, or when the task is cancelled.
    func wait(since seen: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForSignal(since: seen) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForSignal(since seen: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    // Cancelled before registering: the handler below found nothing to resume.
                    if state.generation != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
