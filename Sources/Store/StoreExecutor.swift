import Foundation

/// A serial executor backed by one dedicated thread, so that the `Store` actor's blocking SQLite calls never
/// occupy a thread of Swift's cooperative pool.
final class StoreExecutor: SerialExecutor, @unchecked Sendable {
    // `jobs`, `stopping` and `threadID` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var threadID: pthread_t?

    init(name: String) {
        let thread = Thread { [self] in
            Thread.current.name = name  // best effort: shown by Foundation and some debuggers
            self.runLoop()
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(isCurrentThread, "not on the Store's executor thread")
    }

    /// Whether the calling code runs on this executor's thread.
    var isCurrentThread: Bool {
        condition.lock()
        let owner = threadID
        condition.unlock()
        return owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Lets the thread finish the jobs it has and exit. Called when the owning actor goes away.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        condition.lock()
        threadID = pthread_self()
        condition.unlock()
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty && stopping {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            let executor = asUnownedSerialExecutor()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
