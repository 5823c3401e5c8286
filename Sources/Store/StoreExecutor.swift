import Foundation
import Threads

/// A serial executor backed by one dedicated thread, so that the `Store` actor's blocking SQLite calls never
/// occupy a thread of Swift's cooperative pool.
final class StoreExecutor: SerialExecutor, @unchecked Sendable {
    // Set once in init, before the executor is shared.
    private var thread: WorkThread<UnownedJob>!

    init(name: String) {
        thread = WorkThread(name: name) { [self] jobs in
            let executor = asUnownedSerialExecutor()
            for job in jobs { job.runSynchronously(on: executor) }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        thread.submit(UnownedJob(job))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(isCurrentThread, "not on the Store's executor thread")
    }

    /// Whether the calling code runs on this executor's thread.
    var isCurrentThread: Bool { thread.isCurrentThread }

    /// Lets the thread finish the jobs it has and exit. Called when the owning actor goes away.
    func shutdown() {
        thread.stop(leftovers: .finish, wait: false)
    }
}
