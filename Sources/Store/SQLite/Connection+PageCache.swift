extension Connection {
    /// Runs `body` (inside a write transaction) with this connection's page cache held to `kib` KiB, then gives it
    /// back its size. Pages a transaction changes stay in the cache until COMMIT while it has room; beyond its size
    /// SQLite writes them to the WAL as it goes (uncommitted frames, dropped by a ROLLBACK). So a write of many MB
    /// (a large batch's blob) costs a few MB of memory instead of its own size, at the price of reading back the
    /// clean pages the smaller cache let go.
    func withPageCache<T>(kib: Int, _ body: () throws -> T) throws -> T {
        let before = try prepare("PRAGMA cache_size").scalarInt64() ?? -2000
        try execute("PRAGMA cache_size = -\(kib)")
        defer { try? execute("PRAGMA cache_size = \(before)") }
        return try body()
    }
}
