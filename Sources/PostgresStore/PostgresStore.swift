import APNs
import Foundation
import QueueModel
import Threads

/// The queue, the device registry and the delivery log in a PostgreSQL database, for several workers on several
/// hosts. The same protocols as the SQLite `Store`, the same rows (see `PGSchema`), and the job-queue pattern of
/// PostgreSQL's own queues: claims with `FOR UPDATE SKIP LOCKED`, wake-ups with `LISTEN/NOTIFY`.
///
/// One actor owns one connection and runs on its own thread, so libpq's blocking calls never occupy Swift's
/// cooperative pool. A lost connection fails the call in progress with `StoreError.unavailable` (transient: the
/// worker pauses and retries) and is opened again by the next call; one the server ended while it sat idle (a
/// restart) is replaced before the next call uses it.
public actor PostgresStore {
    /// How the database is opened.
    public struct Options: Sendable {
        /// Create the schema when the database has none (`apnsd init`, and commands that may create a SQLite
        /// file). Without it, a database without apnsd's schema is `databaseMissing`.
        public var createIfMissing: Bool
        /// Read-only transactions only; the schema must be exactly this build's.
        public var readOnly: Bool

        public init(createIfMissing: Bool = true, readOnly: Bool = false) {
            self.createIfMissing = createIfMissing
            self.readOnly = readOnly
        }
    }

    /// The NOTIFY channel: producers notify it when they make work due or ask for a cancel.
    static let channel = "apnsd"

    /// The database, as errors name it: the URL without its password.
    public nonisolated let path: String
    /// Fired after each write transaction of this store.
    public nonisolated let commits = WorkSignal()
    let conninfo: String
    private let options: Options
    let executor: ThreadExecutor
    private var connection: PGConnection?
    private let listener: PGListener
    /// Fired after each commit that wrote events.
    public nonisolated let eventCommits = WorkSignal()
    private var closed = false
    /// Claims whose COMMIT may have happened although the answer never arrived (the connection was lost): their
    /// rows may be leased to a worker that does not hold them. Released by the next claim (`releaseUnresolvedClaims`).
    var unresolvedClaims: [(worker: Int64, leasedUntil: Int64)] = []

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Whether `database` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a SQLite file.
    public static func isURL(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// Connects to the database at `url` (a libpq URI: `sslmode`, `PGPASSFILE` and the `PG*` variables apply) and
    /// brings the schema up to date — or, with `options.readOnly`, checks that it is.
    public static func open(url: String, options: Options = Options()) async throws(StoreError) -> PostgresStore {
        let store = PostgresStore(url: url, options: options)
        try await store.connect()
        return store
    }

    private init(url: String, options: Options) {
        conninfo = url
        path = Self.redacted(url)
        self.options = options
        executor = ThreadExecutor(name: "apnsd.pg-store")
        listener = PGListener(conninfo: url)
    }

    deinit {
        listener.stop()
        executor.shutdown()
    }

    private func connect() throws(StoreError) {
        let db = try db()
        try guarded {
            let status = try PGMigrator.status(db)
            if options.readOnly || !options.createIfMissing {
                if status.applied.isEmpty { throw StoreError.databaseMissing(path: path) }
            }
            guard status.unknown.isEmpty else {
                throw StoreError.newerSchema(path: path, unknownMigrations: status.unknown)
            }
            if options.readOnly {
                guard status.missing.isEmpty else {
                    throw StoreError.olderSchema(path: path, missingMigrations: status.missing)
                }
                try db.execute("SET default_transaction_read_only = on")
                return
            }
            if !status.missing.isEmpty { try PGMigrator.migrate(db) }
        }
    }

    /// Closes the connections; later calls fail with `StoreError.closed`.
    public func close() {
        closed = true
        connection = nil
        listener.stop()
    }

    /// The open connection, connecting first when there is none: the last one was lost, or the server ended its
    /// session while it sat idle (replaced before it fails a call once the server answers again).
    func db() throws(StoreError) -> PGConnection {
        if closed { throw .closed(path: path) }
        if let connection, connection.isOK, !connection.spokeWhileIdle { return connection }
        connection = nil
        do {
            let fresh = try PGConnection(conninfo: conninfo)
            try fresh.execute("SET application_name = 'apnsd'")
            if options.readOnly { try fresh.execute("SET default_transaction_read_only = on") }
            connection = fresh
            return fresh
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    /// Runs `body`, turning libpq errors into `StoreError`s that name this database; a lost connection is dropped.
    func guarded<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw failure(error)
        }
    }

    /// What a thrown error means for the caller; a libpq error that lost the connection drops it.
    private func failure(_ error: any Error) -> StoreError {
        if let error = error as? PGError, error.connectionLost || !(connection?.isOK ?? false) { connection = nil }
        return Self.storeError(error, path: path)
    }

    /// Runs `body` in a transaction; retried (whole) when the server reports a serialization failure or deadlock.
    /// Fires `commits` after a COMMIT that changed rows.
    func write<T>(_ body: (PGConnection) throws -> T) throws(StoreError) -> T {
        var attempt = 0
        while true {
            attempt += 1
            let db = try db()
            let before = db.totalChanges
            do {
                let result = try db.transaction { try body($0) }
                // After COMMIT, and only when rows changed: a worker woken by it claims from the committed state,
                // and an idle worker's empty claim does not wake it again.
                if db.totalChanges != before { commits.notify() }
                return result
            } catch let error as PGError where error.isRetryable && attempt < 10 {
                usleep(UInt32.random(in: 1_000...(5_000 * UInt32(attempt))))
            } catch {
                throw failure(error)
            }
        }
    }

    /// Runs `body` with the connection outside an explicit transaction (each statement sees its own snapshot).
    func read<T>(_ body: (PGConnection) throws -> T) throws(StoreError) -> T {
        let db = try db()
        return try guarded { try body(db) }
    }

    /// Wakes the workers listening on the channel when the transaction commits (call inside `write`).
    static func notifyWorkers(_ db: PGConnection, _ payload: String = "work") throws {
        try db.query("SELECT pg_notify($1, $2)", PGValue.text(channel), PGValue.text(payload))
    }

    /// The listener's count of notifications (another connection made work due or asked for a cancel).
    public func changeCount() throws(StoreError) -> Int64 {
        if closed { throw .closed(path: path) }
        listener.start()
        return listener.count
    }

    static func storeError(_ error: any Error, path: String) -> StoreError {
        guard let error = error as? PGError else {
            if let error = error as? StoreError { return error }
            return .corruptValue(String(describing: error))
        }
        if error.isUnavailable { return .unavailable(path: path, detail: error.message) }
        switch error.sqlState {
        case "53100": return .diskFull(path: path)
        case "25006", "42501": return .readOnly(path: path)
        case "3D000", "28000", "28P01": return .cannotOpen(path: path, reason: error.message)
        default: return .engineFailure(path: path, code: Int(error.sqlState, radix: 36) ?? 0, detail: error.description)
        }
    }

    /// A URL or conninfo string without its password.
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else {
            return url.split(separator: " ").filter { !$0.hasPrefix("password=") }.joined(separator: " ")
        }
        var rest = url[scheme.upperBound...]
        var query = ""
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[question...]).split(separator: "&").filter {
                !$0.hasPrefix("password=") && !$0.hasPrefix("?password=")
            }
            .joined(separator: "&")
            if !query.isEmpty && !query.hasPrefix("?") { query = "?" + query }
            rest = rest[..<question]
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            let user = credentials.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            rest = Substring(user + rest[at...])
        }
        return String(url[..<scheme.upperBound]) + rest + query
    }
}

extension PostgresStore: DeliveryStore, ProducerStore, APIKeyStore, EventStore, GaugeStore, RetentionStore, BackupStore
{}
