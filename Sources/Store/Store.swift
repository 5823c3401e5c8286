import APNs
import Foundation
import QueueModel
import Threads

/// The queue, the device registry and the delivery log, in one SQLite file (WAL mode).
///
/// One actor owns the one connection to the file and runs on its own thread (`ThreadExecutor`), so SQLite's
/// blocking calls never occupy Swift's cooperative pool. Several processes may open the same file (the CLI
/// and the worker): writes take the write lock with `BEGIN IMMEDIATE` and wait up to the busy timeout.
///
/// Times given as `now:` are injected so tests control the clock; they default to the current time.
public actor Store {
    /// How the file is opened.
    public struct Options: Sendable {
        /// Create the file (and the schema) when it does not exist. Read-only CLI commands pass false so that
        /// a mistyped path is an error instead of a new empty database.
        public var createIfMissing: Bool
        /// Open with SQLITE_OPEN_READONLY, for commands that only read: they then work on a file this user may
        /// not write (e.g. the worker's, or one on read-only media). Such a store never creates the file, never
        /// changes its journal mode and never migrates it: it refuses a schema that is not exactly this build's
        /// (`olderSchema`, `newerSchema`), and every write fails with `StoreError.readOnly`.
        public var readOnly: Bool
        /// How long a write waits for another process's write lock.
        public var busyTimeout: Duration
        /// The most memory SQLite's page cache may use, in MiB. Big imports into a big registry go faster with
        /// more (the token index of a million devices is about 100 MiB).
        public var cacheSizeMiB: Int

        public init(
            createIfMissing: Bool = true, readOnly: Bool = false, busyTimeout: Duration = .seconds(5),
            cacheSizeMiB: Int = 64
        ) {
            self.createIfMissing = createIfMissing
            self.readOnly = readOnly
            self.busyTimeout = busyTimeout
            self.cacheSizeMiB = cacheSizeMiB
        }
    }

    /// The database file.
    public nonisolated let path: String
    /// Fired after each write transaction of this store that changed rows.
    public nonisolated let commits = WorkSignal()
    private let options: Options
    let executor: ThreadExecutor
    private var connection: Connection?
    /// Devices imported since the WAL was last checkpointed whole (`importDevices`).
    var importedSinceCatchUp = 0
    /// Fired after each commit that wrote events.
    public nonisolated let eventCommits = WorkSignal()

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating if allowed) the database at `path`, applies the connection settings (WAL,
    /// synchronous=NORMAL, busy timeout, foreign keys) and brings the schema up to date — or, with
    /// `options.readOnly`, opens it read-only and checks that the schema is up to date.
    public static func open(at path: String, options: Options = Options()) async throws(StoreError) -> Store {
        let store = Store(path: path, options: options)
        try await store.connect()
        return store
    }

    private init(path: String, options: Options) {
        self.path = path
        self.options = options
        self.executor = ThreadExecutor(name: "apnsd.store")
    }

    deinit {
        executor.shutdown()
    }

    private func connect() throws(StoreError) {
        if !options.createIfMissing || options.readOnly {
            var info = stat()
            if stat(path, &info) != 0 {
                // A directory this user may not search hides the file: say so, not that it is missing.
                throw errno == EACCES ? .permissionDenied(path: path) : .databaseMissing(path: path)
            }
        }
        let timeout = options.busyTimeout.components
        var settings = Connection.Options()
        settings.create = options.createIfMissing
        settings.busyTimeoutMilliseconds = Int32(
            clamping: timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000)
        settings.cacheSizeKiB = max(1, options.cacheSizeMiB) * 1024
        try guarded {
            if options.readOnly {
                settings.access = ConnectionAccess.readOnly(for: path)
                connection = try openReadOnly(settings)
                return
            }
            let db = try Connection(path: path, options: settings)
            let result = try Schema.migrator.migrate(db)
            guard result.unknown.isEmpty else {
                throw StoreError.newerSchema(path: path, unknownMigrations: result.unknown)
            }
            connection = db
        }
    }

    /// A read-only connection whose schema is exactly this build's. A `-wal` file that vanished between choosing
    /// the access and opening (its last connection closed) leaves SQLite unable to create `-shm`
    /// (SQLITE_READONLY_DIRECTORY): then nobody has the file open, and it is read as immutable.
    private func openReadOnly(_ settings: Connection.Options) throws -> Connection {
        var settings = settings
        let db: Connection
        let status: Migrator.Status
        do {
            db = try Connection(path: path, options: settings)
            status = try Schema.migrator.status(db)
        } catch let error as SQLiteError where error.code == 1544 && settings.access == .readOnly {
            settings.access = .immutable
            return try openReadOnly(settings)
        }
        guard status.unknown.isEmpty else {
            throw StoreError.newerSchema(path: path, unknownMigrations: status.unknown)
        }
        guard status.missing.isEmpty else {
            throw StoreError.olderSchema(path: path, missingMigrations: status.missing)
        }
        return db
    }

    /// Closes the connection (the last connection to close checkpoints the WAL into the file); later calls fail
    /// with `StoreError.closed`. No `PRAGMA optimize`: without statistics the query plans stay the ones tested.
    public func close() {
        connection = nil
    }

    /// The open connection.
    func db() throws -> Connection {
        guard let connection else { throw StoreError.closed(path: path) }
        return connection
    }

    /// Runs `body`, turning SQLite errors into `StoreError`s that name this database.
    func guarded<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteError {
            throw StoreError(error, path: path)
        } catch {
            throw .corruptValue(String(describing: error))
        }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE … COMMIT`); fires `commits` when it changed rows.
    func write<T>(_ body: (Connection) throws -> T) throws(StoreError) -> T {
        try guarded {
            let db = try db()
            let before = db.totalChanges
            let result = try db.write { try body(db) }
            // After COMMIT: a worker woken by it claims from the committed state.
            if db.totalChanges != before { commits.notify() }
            return result
        }
    }

    /// Runs `body` with the connection, outside an explicit transaction (each statement is its own snapshot).
    func read<T>(_ body: (Connection) throws -> T) throws(StoreError) -> T {
        try guarded { try body(try db()) }
    }
}
