internal import CSQLite
import Foundation

/// One SQLite connection, owned by one thread of control (the `Store` actor): opened with
/// `SQLITE_OPEN_NOMUTEX`, because nothing else ever touches it.
final class Connection {
    let handle: OpaquePointer
    let path: String
    private var cache: [String: Statement] = [:]

    /// How the file is opened and tuned.
    struct Options {
        /// Create the file when it does not exist (read-write access only).
        var create = true
        /// Whether the connection may write; read-only connections leave the journal mode as the file has it.
        var access = ConnectionAccess.readWrite
        /// How long a write waits for another process's write lock before failing with SQLITE_BUSY.
        var busyTimeoutMilliseconds: Int32 = 5000
        /// Page cache size in KiB, an upper bound (SQLite's default, 2000 KiB, is too small for the random-keyed
        /// token index of a million devices: imports would re-read and re-write its pages all the time).
        var cacheSizeKiB = 64 * 1024
    }

    /// Opens (or creates) the database at `path` and applies the connection PRAGMAs: WAL (read-write access
    /// only), synchronous=NORMAL, busy timeout, foreign keys.
    init(path: String, options: Options = Options()) throws {
        var handle: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        switch options.access {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0)
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable: flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        }
        let code = sqlite3_open_v2(options.access.filename(for: path), &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message, systemErrno: systemErrno)
        }
        sqlite3_extended_result_codes(handle, 1)
        self.handle = handle
        self.path = path
        // SQLite opens a file it may not write read-only without saying so; a writer must know now, before the
        // journal-mode switch below tries to create files next to it.
        if options.access == .readWrite && sqlite3_db_readonly(handle, "main") == 1 {
            throw SQLiteError(code: SQLITE_READONLY, message: "the file is not writable by this process")
        }
        sqlite3_busy_handler(
            handle, busyHandler, UnsafeMutableRawPointer(bitPattern: Int(max(1, options.busyTimeoutMilliseconds))))
        if options.access == .readWrite {
            // A new, empty file: free pages will be given back in steps (`apnsd prune`). The mode can be chosen only
            // before the first table exists; an older file keeps its mode until converted (VACUUM).
            let pages = try prepare("PRAGMA page_count")
            if try pages.scalarInt64() == 0 { try execute("PRAGMA auto_vacuum = INCREMENTAL") }
            // journal_mode answers with a row; a file that is not a database fails here (SQLITE_NOTADB).
            let mode = try prepare("PRAGMA journal_mode = WAL")
            let journal = try mode.step() ? mode.string(0) : ""
            mode.reset()
            guard journal.lowercased() == "wal" else {
                throw SQLiteError(
                    code: SQLITE_ERROR, message: "could not switch to WAL mode (journal_mode is '\(journal)')",
                    sql: "PRAGMA journal_mode = WAL")
            }
        }
        try execute(
            """
            PRAGMA synchronous = NORMAL;
            PRAGMA foreign_keys = ON;
            PRAGMA cache_size = -\(options.cacheSizeKiB);
            PRAGMA temp_store = MEMORY;
            """)
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters (schema, PRAGMAs, BEGIN/COMMIT).
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: code, message: message, sql: sql, systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Prepares a statement that is used once.
    func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// The prepared statement for `sql`, prepared on first use and kept for the life of the connection.
    func cached(_ sql: String) throws -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` (takes the write lock up front, so a busy database fails
    /// at the start instead of at the first write), then COMMIT, or ROLLBACK when `body` throws.
    func write<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        return result
    }

    /// The rowid of the last successful INSERT on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Rows changed by this connection since it opened.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Wraps a failing result code with this connection's message.
    func error(_ code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(
            code: sqlite3_extended_errcode(handle) == 0 ? code : sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)), sql: sql, systemErrno: sqlite3_system_errno(handle))
    }
}

/// Waits for another connection's lock, up to the busy timeout (in milliseconds, carried as the context
/// pointer's value). SQLite's own handler sleeps 1, 2, 5, 10 … 100 ms between tries, far longer than workers
/// sharing the file hold the lock (BENCHMARKS.md section 5); this one tries again after 50 µs, doubling to 2 ms. Returns 0 (give up: SQLITE_BUSY) once the timeout is spent.
private let busyHandler: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, tries in
    let timeout = Int(bitPattern: context) * 1000
    let n = Int(tries)
    let pause = min(2000, 50 << min(n, 6))
    let slept = n <= 6 ? 50 * ((1 << n) - 1) : 3150 + 2000 * (n - 6)
    guard slept < timeout else { return 0 }
    usleep(useconds_t(min(pause, timeout - slept)))
    return 1
}
