import Foundation

/// A named thread of its own for code that blocks (a poll loop, SQLite, OpenSSL), kept off Swift's cooperative
/// pool, with a way to wait for its end.
public final class DedicatedThread: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    // Guarded by `lock`; written once by the thread as it starts.
    private let lock = NSLock()
    private var threadID: pthread_t?

    /// Starts `body` on a new thread called `name`.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            // Named from inside: on Linux a name set before start() never reaches the OS thread.
            Thread.current.name = name
            lock.lock()
            threadID = pthread_self()
            lock.unlock()
            body()
            finished.signal()
        }
        thread.start()
    }

    /// Whether the calling code runs on this thread.
    public var isCurrent: Bool {
        lock.lock()
        let owner = threadID
        lock.unlock()
        return owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Waits until the body has returned; any number of calls, from any thread.
    public func join() {
        finished.wait()
        finished.signal()
    }
}
