/// A failed SQLite call: the (extended) result code, SQLite's message, and the statement it ran.
///
/// Bound values are never part of the error: they can be device tokens or payloads.
struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`); `primaryCode` strips the extension.
    var code: Int32
    /// `sqlite3_errmsg` at the time of the failure (or `sqlite3_errstr` when no connection was open).
    var message: String
    /// The SQL text of the failing statement, when there was one.
    var sql: String?
    /// The operating system's `errno` behind an I/O failure (`sqlite3_system_errno`), 0 when none: "disk I/O error"
    /// alone does not tell an operator whether the disk, the filesystem or a permission is at fault.
    var systemErrno: Int32

    init(code: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The primary result code (`SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19, …).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether the database was locked by another connection for longer than the busy timeout.
    var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }  // SQLITE_BUSY, SQLITE_LOCKED

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " — in `\(Self.oneLine(sql))`" }
        return text
    }

    private static func oneLine(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        let joined = words.joined(separator: " ")
        return joined.count <= 300 ? joined : String(joined.prefix(300)) + "…"
    }
}
