internal import CSQLite

/// A prepared statement: bind parameters by index (1-based), step, read columns (0-based).
///
/// Owned by one `Connection`, used by one thread at a time; `Connection.cached(_:)` hands out the same
/// instance for the same SQL text, so always `reset()` (done by `bind`) before reuse.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw connection.error(code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement, clears old bindings and binds `values` to parameters 1, 2, ….
    @discardableResult
    func bind<each Value: SQLBindable>(_ values: repeat each Value) throws -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            try check(value.bind(to: handle, at: index))
        }
        return self
    }

    /// Binds one value to parameter `index` (1-based) without resetting the others.
    func bindAt(_ index: Int32, _ value: some SQLBindable) throws {
        try check(value.bind(to: handle, at: index))
    }

    /// Binds the UTF-8 text `text[range]` without SQLite copying it: `text` must stay valid and unchanged until
    /// the statement is reset or rebound (bulk statements bind into one buffer that outlives their step).
    func bindText(_ index: Int32, _ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws {
        guard let base = text.baseAddress, !range.isEmpty else { return try bindAt(index, "") }
        let start = UnsafeRawPointer(base + range.lowerBound).assumingMemoryBound(to: CChar.self)
        try check(sqlite3_bind_text(handle, index, start, Int32(range.count), nil))  // nil: SQLITE_STATIC
    }

    /// Binds the blob `bytes` without SQLite copying it (a large value would otherwise be held twice while the row's
    /// record is built from it): `bytes` must stay valid and unchanged until the statement is reset or rebound.
    func bindBlob(_ index: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return try check(sqlite3_bind_zeroblob(handle, index, 0))
        }
        try check(sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), nil))  // nil: SQLITE_STATIC
    }

    /// Steps once; `true` when a row is available, `false` when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(code, sql: sql)
        }
    }

    /// Runs a statement that returns no rows (or whose rows are ignored) to completion and resets it.
    func run() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Resets the statement so that it releases its read snapshot; bindings are kept.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Steps once and returns the first column as an integer, or nil when there is no row or it is NULL.
    func scalarInt64() throws -> Int64? {
        defer { sqlite3_reset(handle) }
        guard try step(), !isNull(0) else { return nil }
        return int64(0)
    }

    // MARK: Columns (0-based)

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
    }
}
