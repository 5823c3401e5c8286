internal import CLibPQ
import Foundation

/// One libpq connection, owned by one thread of control (the `PostgresStore` actor, or the listener's thread).
/// Statements are prepared once per text and parameter types, and run with binary parameters and results.
final class PGConnection {
    private let handle: OpaquePointer
    private var prepared: [String: String] = [:]
    /// Rows changed by the statements run with parameters on this connection (`PostgresStore.write` fires its
    /// commit signal only when a transaction changed some).
    private(set) var totalChanges = 0

    /// Connects with a libpq connection string or URI (`postgres://…`; `PG*` variables and `PGPASSFILE` apply).
    init(conninfo: String) throws(PGError) {
        guard let handle = PQconnectdb(conninfo) else {
            throw PGError(sqlState: "", message: "out of memory", connectionLost: true)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(handle)
            throw PGError(sqlState: "08001", message: message, connectionLost: true)
        }
        self.handle = handle
        // Notices (e.g. "relation already exists, skipping") are not errors; keep them off stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Whether libpq still considers the connection usable.
    var isOK: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether the server sent something while the connection sat idle between statements: a session the server
    /// ends (a restart, a failover, `pg_terminate_backend`) gets its error and then the close, so the next statement
    /// would fail. Nothing else arrives unasked on a connection that does not LISTEN (rarely a setting's new value:
    /// replacing the connection then costs a reconnect, nothing more).
    var spokeWhileIdle: Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// The connection's socket, for waiting on notifications.
    var socket: Int32 { PQsocket(handle) }

    /// Whether the server has an open transaction on this connection (a statement failed inside one, or a
    /// body threw): the store rolls it back before reusing the connection.
    var inTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Runs one or more statements without parameters (schema, BEGIN/COMMIT, LISTEN).
    func execute(_ sql: String) throws(PGError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs `body` between `begin` and COMMIT; rolls back (when the connection still works) if it throws.
    func transaction<T>(_ begin: String = "BEGIN", _ body: (PGConnection) throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            if isOK && inTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs one statement with parameters and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [PGValue] = []) throws(PGError) -> PGResult {
        let types = parameters.map(\.typeOID)
        let key = types.isEmpty ? sql : sql + "\u{0}" + types.map(String.init).joined(separator: ",")
        let name: String
        if let existing = prepared[key] {
            name = existing
        } else {
            name = "s\(prepared.count)"
            let result = PQprepare(handle, name, sql, Int32(types.count), types)
            defer { PQclear(result) }
            try check(result, sql: sql)
            prepared[key] = name
        }
        return try run(sql, parameters) { count, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 1)
        }
    }

    /// Runs one statement with parameters without preparing it (statements whose text varies, e.g. multi-row
    /// inserts of `apnsd migrate`, would fill the server's prepared-statement memory).
    @discardableResult
    func queryOnce(_ sql: String, _ parameters: [PGValue]) throws(PGError) -> PGResult {
        let types = parameters.map(\.typeOID)
        return try run(sql, parameters) { count, values, lengths, formats in
            PQexecParams(handle, sql, count, types, values, lengths, formats, 1)
        }
    }

    /// Encodes the parameters (binary), runs `execute` with them, checks the result and counts its changes.
    private func run(
        _ sql: String, _ parameters: [PGValue],
        _ execute: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> OpaquePointer?
    ) throws(PGError) -> PGResult {
        let encoded = parameters.map(\.encoded)
        let lengths = encoded.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: encoded.count)
        let result = withPointers(encoded) { pointers in execute(Int32(encoded.count), pointers, lengths, formats) }
        guard let result else { throw lost(sql) }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        let rows = PGResult(result)
        totalChanges &+= rows.changes
        return rows
    }

    /// Convenience: parameters as Swift values.
    @discardableResult
    func query(_ sql: String, _ parameters: any PGBindable...) throws(PGError) -> PGResult {
        try query(sql, parameters.map(\.pgValue))
    }

    /// Reads what the server sent (notifications) without waiting; false when the connection is lost.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 }

    /// The notifications received so far (channel names), oldest first.
    func notifications() -> [String] {
        var channels: [String] = []
        while let notify = PQnotifies(handle) {
            channels.append(String(cString: notify.pointee.relname))
            PQfreemem(notify)
        }
        return channels
    }

    private func check(_ result: OpaquePointer?, sql: String) throws(PGError) {
        guard let result else { throw lost(sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            var message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            if message.hasPrefix("ERROR:") {
                message = String(message.dropFirst(6)).trimmingCharacters(in: .whitespaces)
            }
            if message.isEmpty {
                message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            throw PGError(
                sqlState: state, message: message, sql: sql, connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
    }

    private func lost(_ sql: String) -> PGError {
        let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        return PGError(
            sqlState: "", message: message.isEmpty ? "connection lost" : message, sql: sql,
            connectionLost: PQstatus(handle) != CONNECTION_OK || message.isEmpty)
    }

    /// Calls `body` with C pointers to each parameter's bytes (NULL for a NULL parameter), all in one buffer.
    private func withPointers<R>(_ values: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let total = values.reduce(0) { $0 + ($1?.count ?? 0) }
        // One byte more, so that a zero-length value still gets a non-NULL pointer.
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: total + 1)
        defer { buffer.deallocate() }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(values.count)
        var offset = 0
        for value in values {
            guard let value else {
                pointers.append(nil)
                continue
            }
            value.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(buffer + offset).copyMemory(
                    from: bytes.baseAddress ?? UnsafeRawPointer(buffer), byteCount: bytes.count)
            }
            pointers.append(UnsafePointer(buffer + offset))
            offset += value.count
        }
        return body(pointers)
    }
}
