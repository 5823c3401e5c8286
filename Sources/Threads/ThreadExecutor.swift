import Foundation

/// A serial executor backed by one dedicated thread, so that an actor's blocking calls (SQLite, libpq) never
/// occupy a thread of Swift's cooperative pool.
public final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    // Set once in init, before the executor is shared.
    private var thread: WorkThread<UnownedJob>!

    public init(name: String) {
        thread = WorkThread(name: name) { [self] jobs in
            let executor = asUnownedSerialExecutor()
            for job in jobs { job.runSynchronously(on: executor) }
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        thread.submit(UnownedJob(job))
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isCurrentThread, "not on the executor's thread")
    }

    /// Whether the calling code runs on this executor's thread.
    public var isCurrentThread: Bool { thread.isCurrentThread }

    /// Lets the thread finish the jobs it has and exit. Called when the owning actor goes away.
    public func shutdown() {
        thread.stop(leftovers: .finish, wait: false)
    }
}
