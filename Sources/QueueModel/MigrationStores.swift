import Foundation

/// The store `apnsd migrate` copies from (SQLite).
public protocol MigrationSource: Actor {
    /// Makes the store ready to be copied (writes out work it keeps in a compact form).
    func prepareForExport() async throws(StoreError)
    /// The workers registered (the source's workers must be stopped before copying).
    func workers() async throws(StoreError) -> [WorkerRecord]
    /// Up to `limit` rows of `table` after the key `after` (nil: from the start), in key order.
    func exportRows(_ table: CopyTable, after: [CopyValue]?, limit: Int) async throws(StoreError) -> [[CopyValue]]
    /// The number of rows of `table`.
    func rowCount(_ table: CopyTable) async throws(StoreError) -> Int
    func close() async
}

/// The store `apnsd migrate` copies into (PostgreSQL).
public protocol MigrationTarget: Actor {
    /// The tables that hold rows already (nothing is copied into a store that is not empty unless it is emptied).
    func nonEmptyTables() async throws(StoreError) -> [String]
    /// Deletes every row of every table (`apnsd migrate --replace`).
    func emptyAllTables() async throws(StoreError)
    /// Writes rows read from the source, in one transaction.
    func importRows(_ table: CopyTable, _ rows: [[CopyValue]]) async throws(StoreError)
    /// After the last table: identities continue after the highest id copied, and workers are told of new work.
    func finishImport() async throws(StoreError)
    func rowCount(_ table: CopyTable) async throws(StoreError) -> Int
    func close() async
}
