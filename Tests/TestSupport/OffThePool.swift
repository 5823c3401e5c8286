import Foundation
import Testing

/// Runs a test's body on threads of its own instead of Swift's cooperative pool, where Swift Testing runs even a
/// synchronous test. For tests that block their thread (a child process waited for, a blocking socket, a sleep): the
/// pool starts with one thread per core and adds about one a second while they block, so on a 2-core machine a few
/// dozen such tests queued at the start held it for a minute and starved the async tests beside them (a server's
/// handler task, a worker).
public struct OffThePool: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(BlockingExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffThePool {
    /// The test blocks its thread: run it off the cooperative pool.
    public static var offThePool: OffThePool { OffThePool() }
}

/// A task executor of two threads of its own, taking jobs in order. Few on purpose: the blocking tests queue
/// behind each other here (as they did on the pool) while async tests keep the pool; hundreds at once would
/// swamp a 2-core machine with child processes and simulators.
final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = BlockingExecutor(threads: 2)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.serve() }
            thread.name = "tests.blocking.\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
