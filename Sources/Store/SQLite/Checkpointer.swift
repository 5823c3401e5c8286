internal import CSQLite
import Foundation
import Threads

/// Copies the WAL into the database file from a thread and connection of its own while a long series of
/// commits goes on (`Store.importDevices`). Without it, each big commit runs the checkpoint itself and waits
/// for its fsyncs; with it, the writer goes on parsing and inserting while the disk works.
final class Checkpointer: @unchecked Sendable {
    // Used by the thread only.
    private let connection: Connection
    // Set once in init.
    private var thread: WorkThread<Void>!

    /// Opens a second connection to `path` and starts the thread.
    init(path: String) throws {
        connection = try Connection(path: path, options: .init(create: false, cacheSizeKiB: 2048))
        // Requests made while a checkpoint runs arrive as one batch: one more checkpoint.
        thread = WorkThread(name: "apnsd.checkpoint") { [self] _ in
            // PASSIVE never waits for the writer; a checkpoint that cannot finish leaves the rest to the next.
            sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }

    /// Asks for a checkpoint of what has been committed so far.
    func request() { thread.submit(()) }

    /// Lets a running checkpoint finish (without starting a requested one) and ends the thread.
    func stop() { thread.stop(leftovers: .drop, wait: true) }

    /// Checkpoints everything committed, the writer idle meanwhile, and ends the thread. A checkpoint that runs
    /// beside a writer that never pauses is always behind, and the WAL grows as long as the commits go on (6.6 GB
    /// after 75 s of importing 4 million devices); once one has caught up, the next commit writes the WAL from its
    /// start.
    func finish() {
        thread.submit(())
        thread.stop(leftovers: .finish, wait: true)
    }
}
