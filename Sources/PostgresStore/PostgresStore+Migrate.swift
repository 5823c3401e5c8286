import Foundation
import QueueModel

extension PostgresStore: MigrationTarget {
    /// Columns that SQLite stores as 0/1 and PostgreSQL as booleans.
    private static let booleanColumns: Set<String> = [
        "devices.active", "campaigns.expanded", "campaigns.paused", "campaigns.verify",
    ]
    /// The campaign counters, which PostgreSQL keeps in `campaign_counts`.
    private static let counterColumns = [
        "total", "pending", "accepted", "rejected", "unregistered", "failed", "cancelled",
    ]
    /// Every table of the schema, emptied by `--replace`.
    private static let allTables = [
        "devices", "campaigns", "campaign_counts", "campaign_audience", "deliveries", "delivery_attempts",
        "cancel_requests", "cancel_acks", "workers", "api_keys", "idempotency_keys", "events",
        "webhook_cursor", "outcome_counts", "gauge_counts", "channels", "webhook_failure", "webhook_parked",
        "campaign_outcome_counts",
    ]
    /// The sharded counters: SQLite's rows go to shard 0.
    private static let shardedTables: Set<String> = ["outcome_counts", "campaign_outcome_counts"]

    public func nonEmptyTables() throws(StoreError) -> [String] {
        try read { db in
            try CopyTable.all.map(\.name).filter { table in
                try db.query("SELECT EXISTS (SELECT 1 FROM \(table))").bool(0, 0)
            }
        }
    }

    public func emptyAllTables() throws(StoreError) {
        try write { db in try db.execute("TRUNCATE \(Self.allTables.joined(separator: ", ")) RESTART IDENTITY") }
    }

    public func importRows(_ table: CopyTable, _ rows: [[CopyValue]]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        try write { db in
            var columns = table.columns
            var cells = rows
            if table.name == "campaigns" {
                // Counters go to the campaign's shard 0 of campaign_counts; the rest to campaigns.
                let counterIndexes = Self.counterColumns.compactMap { columns.firstIndex(of: $0) }
                let kindIndex = columns.firstIndex(of: "kind")!
                let counts = rows.map { row in [row[0], .int(0), row[kindIndex]] + counterIndexes.map { row[$0] } }
                columns = columns.enumerated().filter { !counterIndexes.contains($0.offset) }.map(\.element)
                cells = rows.map { row in row.enumerated().filter { !counterIndexes.contains($0.offset) }.map(\.element)
                }
                try Self.insert(db, into: "campaigns", columns: columns, cells)
                try Self.insert(
                    db, into: "campaign_counts", columns: ["campaign_id", "shard", "kind"] + Self.counterColumns, counts
                )
                return
            }
            try Self.insert(
                db, into: table.name, columns: columns, cells,
                extra: Self.shardedTables.contains(table.name) ? ["shard"] : [])
        }
    }

    /// Multi-row INSERTs of at most ~60,000 parameters each. `extra` columns are set to 0 (after the others).
    private static func insert(
        _ db: PGConnection, into table: String, columns: [String], _ rows: [[CopyValue]],
        extra: [String] = []
    ) throws {
        let names = columns + extra
        let rows = extra.isEmpty ? rows : rows.map { $0 + extra.map { _ in CopyValue.int(0) } }
        let booleans = names.map { booleanColumns.contains("\(table).\($0)") }
        let perStatement = max(1, 60_000 / names.count)
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + perStatement)]
            var parameters: [PGValue] = []
            parameters.reserveCapacity(chunk.count * names.count)
            var tuples: [String] = []
            tuples.reserveCapacity(chunk.count)
            for row in chunk {
                let first = parameters.count
                for (index, cell) in row.enumerated() {
                    parameters.append(value(cell, boolean: booleans[index]))
                }
                tuples.append("(" + (first..<parameters.count).map { "$\($0 + 1)" }.joined(separator: ",") + ")")
            }
            try db.queryOnce(
                "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES \(tuples.joined(separator: ","))",
                parameters)
            start += perStatement
        }
    }

    private static func value(_ cell: CopyValue, boolean: Bool) -> PGValue {
        switch cell {
        case .null: return .null
        case .int(let int): return boolean ? .bool(int != 0) : .int(int)
        case .text(let text): return .text(text)
        case .bytes(let bytes): return .bytes(bytes)
        }
    }

    public func finishImport() throws(StoreError) {
        try write { db in
            for table in [
                "devices", "campaigns", "deliveries", "workers", "api_keys", "events", "channels", "webhook_parked",
            ] {
                try db.execute(
                    "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), COALESCE((SELECT MAX(id) FROM \(table)), 0) + 1, false)"
                )
            }
            try db.execute(
                "SELECT setval(pg_get_serial_sequence('cancel_requests', 'seq'), COALESCE((SELECT MAX(seq) FROM cancel_requests), 0) + 1, false)"
            )
            try Self.notifyWorkers(db)
        }
    }

    public func rowCount(_ table: CopyTable) throws(StoreError) -> Int {
        try read { db in try db.query("SELECT COUNT(*) FROM \(table.name)").int(0, 0) }
    }
}
