import Foundation
import TestSupport
import Testing

/// Read-only queries through the `sqlite3` shell, as an operator at the prompt.
public enum SQLiteQuery {
    /// Rows of `sql` on `database`, one line per row, `|` between columns.
    public static func query(_ database: String, _ sql: String) throws -> [String] {
        let result = try ToolRun.run("/usr/bin/sqlite3", ["-readonly", "-cmd", ".timeout 5000", database, sql])
        try #require(result.status == 0, "sqlite3 failed on \(sql): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Runs `sql` on `database` for writing (to age rows: nothing in apnsd moves time).
    public static func execute(_ database: String, _ sql: String) throws {
        let result = try ToolRun.run("/usr/bin/sqlite3", ["-cmd", ".timeout 5000", database, sql])
        try #require(result.status == 0, "sqlite3 failed on \(sql): \(result.stderr)")
    }
}
