import Foundation

/// A failure reported by libpq or the server: the SQLSTATE (empty when libpq failed before the server answered,
/// e.g. a lost connection) and the message, first line only.
struct PGError: Error, CustomStringConvertible {
    let sqlState: String
    let message: String
    /// The statement, for the log of an engine failure (never its parameters).
    var sql: String?
    /// libpq saw the connection fail: it must be replaced, and the transaction it ran is gone.
    var connectionLost: Bool

    init(sqlState: String, message: String, sql: String? = nil, connectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        self.sql = sql
        self.connectionLost = connectionLost
    }

    /// The server cannot take the statement now but may soon: connection failure (class 08), shutting down or
    /// starting (57P01–57P03), too many connections (53300), or a failure libpq reports without a SQLSTATE (the
    /// server went away: "server closed the connection unexpectedly").
    var isUnavailable: Bool {
        connectionLost || sqlState.isEmpty || sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02"
            || sqlState == "57P03"
            || sqlState == "53300"
    }

    /// A conflict with a concurrent transaction that a retry of the whole transaction resolves.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    var isUniqueViolation: Bool { sqlState == "23505" }

    var description: String {
        var text = sqlState.isEmpty ? message : "\(message) (SQLSTATE \(sqlState))"
        if let sql {
            text +=
                " in: \(sql.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))"
        }
        return text
    }
}
