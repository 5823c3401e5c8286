import QueueModel

extension Store {
    /// SQLite's `PRAGMA data_version`: moves when another connection commits, not on this one's writes. A read of
    /// the WAL index, no table touched.
    public func changeCount() throws(StoreError) -> Int64 {
        try read { db in try db.cached("PRAGMA data_version").scalarInt64() ?? 0 }
    }
}
