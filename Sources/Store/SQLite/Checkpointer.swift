internal import CSQLite
import Foundation

/// Copies the WAL into the database file from a thread and connection of its own while a long series of
/// commits goes on (`Store.importDevices`). Without it, each big commit runs the checkpoint itself and waits
/// for its fsyncs; with it, the writer goes on parsing and inserting while the disk works.
final class Checkpointer: @unchecked Sendable {
    // `requested` and `stopping` are guarded by `condition`; `connection` is used by the thread only.
    private let condition = NSCondition()
    private var requested = false
    private var stopping = false
    private let connection: Connection
    private let done = DispatchSemaphore(value: 0)

    /// Opens a second connection to `path` and starts the thread.
    init(path: String) throws {
        connection = try Connection(path: path, options: .init(create: false, cacheSizeKiB: 2048))
        let thread = Thread { [self] in
            Thread.current.name = "apnsd.checkpoint"
            run()
        }
        thread.start()
    }

    /// Asks for a checkpoint of what has been committed so far; requests made while one runs become one more.
    func request() {
        condition.lock()
        requested = true
        condition.signal()
        condition.unlock()
    }

    /// Lets a running checkpoint finish (without starting a requested one) and ends the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        done.wait()
    }

    private func run() {
        defer { done.signal() }
        while true {
            condition.lock()
            while !requested && !stopping { condition.wait() }
            let proceed = !stopping
            requested = false
            condition.unlock()
            guard proceed else { return }
            // PASSIVE never waits for the writer; a checkpoint that cannot finish leaves the rest to the next.
            sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }
}
