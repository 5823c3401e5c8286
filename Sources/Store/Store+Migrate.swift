internal import CSQLite
import Foundation
import QueueModel

extension Store: MigrationSource {
    /// Before `apnsd migrate` copies this file, API batches still held as deferred batches are written out as
    /// notifications (what a worker does first), since the target has no such table.
    public func prepareForExport() throws(StoreError) {
        while try read({ db in try Self.hasDeferredBatches(db) }) {
            _ = try expandDeferredBatch(limit: Self.deferredPageLimit)
        }
    }

    public func exportRows(_ table: CopyTable, after: [CopyValue]?, limit: Int) throws(StoreError) -> [[CopyValue]] {
        try read { db in
            let keys = table.key.joined(separator: ", ")
            var sql = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"
            if after != nil {
                sql += " WHERE (\(keys)) > (\(table.key.map { _ in "?" }.joined(separator: ", ")))"
            }
            sql += " ORDER BY \(keys) LIMIT \(max(1, limit))"
            let statement = try db.prepare(sql)
            for (index, value) in (after ?? []).enumerated() {
                switch value {
                case .null: try statement.bindAt(Int32(index + 1), Int64?.none)
                case .int(let int): try statement.bindAt(Int32(index + 1), int)
                case .text(let text): try statement.bindAt(Int32(index + 1), text)
                case .bytes(let bytes): try statement.bindAt(Int32(index + 1), bytes)
                }
            }
            var rows: [[CopyValue]] = []
            while try statement.step() {
                rows.append((0..<Int32(table.columns.count)).map { statement.copyValue($0) })
            }
            return rows
        }
    }

    public func rowCount(_ table: CopyTable) throws(StoreError) -> Int {
        try read { db in Int(try db.prepare("SELECT COUNT(*) FROM \(table.name)").scalarInt64() ?? 0) }
    }
}

extension Statement {
    /// The column as stored, in the cell types both engines share.
    func copyValue(_ column: Int32) -> CopyValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .int(int64(column))
        case SQLITE_BLOB: return .bytes(blob(column))
        case SQLITE_FLOAT: return .int(Int64(sqlite3_column_double(handle, column)))
        default: return .text(string(column))
        }
    }
}
