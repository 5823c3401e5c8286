import Foundation

/// What `apnsd prune` needs from a store: old delivery rows and devices deleted in small steps, each its own short
/// write transaction so that a worker sharing the store is never held up for long, and the space they took given
/// back. `prune(…)` (RetentionStore+Prune) drives the steps.
///
/// Campaign counters are never touched: a campaign keeps its totals after its rows are gone.
public protocol RetentionStore: Actor {
    /// Deletes (with `dryRun`, counts) the finished deliveries (any status but pending) last changed before
    /// `before`, among rows with an id above `after`, looking at no more than `limit` ids. The newest delivery
    /// row is always kept, so that an id is never given out twice.
    func pruneDeliveries(before: Date, after: Int64, limit: Int, dryRun: Bool) async throws(StoreError) -> PruneStep
    /// Deletes (with `dryRun`, counts) devices with an id above `after`, looking at no more than `limit` ids:
    /// inactive ones deactivated before `deactivatedBefore`, active ones last registered before
    /// `registeredBefore`. Their finished deliveries stay in the log under their token; their pending ones are
    /// cancelled when claimed (`DeviceInactive`). The newest device row is always kept (ids are never reused).
    func pruneDevices(
        deactivatedBefore: Date, registeredBefore: Date, after: Int64, limit: Int,
        dryRun: Bool
    ) async throws(StoreError) -> PruneStep
    /// How the file's free space is handled, and how much of it there is.
    func freeSpace() async throws(StoreError) -> FreeSpace
    /// Gives up to `pages` free pages back to the filesystem (incremental vacuum, one short transaction);
    /// returns how many it gave back. Does nothing on a file not in incremental-vacuum mode.
    func reclaimFreePages(upTo pages: Int) async throws(StoreError) -> Int
    /// Converts a file made before incremental vacuum existed in apnsd: rewrites it whole (VACUUM), holding the
    /// write lock until done. A no-op on a file already converted.
    func enableIncrementalVacuum() async throws(StoreError)
    /// The workers registered on the store (to refuse a whole-file rewrite while one is alive).
    func workers() async throws(StoreError) -> [WorkerRecord]
    /// Closes the store.
    func close() async
}
