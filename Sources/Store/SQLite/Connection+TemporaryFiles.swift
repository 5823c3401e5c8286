extension Connection {
    /// Runs `body` with this connection's temporary data (tables, indexes, the sorter's runs, VACUUM's copy) in
    /// files (SQLITE_TMPDIR, else /var/tmp or /tmp) instead of memory, its usual place: work that sorts or copies
    /// gigabytes would otherwise hold gigabytes of RAM. Called outside a transaction, where the setting may change.
    func withTemporaryFiles<T>(_ body: () throws -> T) throws -> T {
        try execute("PRAGMA temp_store = FILE")
        defer { try? execute("PRAGMA temp_store = MEMORY") }
        return try body()
    }
}
