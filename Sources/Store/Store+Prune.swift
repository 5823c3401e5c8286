import Foundation
import QueueModel
import QueueRules

/// Retention (`apnsd prune`): deletes by rowid ranges, so each step reads at most `limit` consecutive rows of the
/// table's own b-tree and its transaction stays short whatever the table's size.
extension Store: RetentionStore {
    public func pruneDeliveries(before: Date, after: Int64, limit: Int, dryRun: Bool) throws(StoreError) -> PruneStep {
        let cutoff = before.storeMilliseconds
        let step = { (db: Connection) throws -> PruneStep in
            guard let (start, end) = try Self.range(db, "deliveries", after: after, limit: limit) else {
                return PruneStep(removed: 0, next: nil)
            }
            // Ids grow with creation time, so the first range created wholly after the cutoff ends the walk (a row
            // changed before the cutoff was created before it): a daily prune reads only the old end of the table.
            let oldest = try db.cached("SELECT MIN(created_at) FROM deliveries WHERE id >= ?1 AND id < ?2")
                .bind(start, end).scalarInt64()
            guard let oldest, oldest < cutoff else { return PruneStep(removed: 0, next: nil) }
            // Pending rows (waiting, leased, in flight, retrying) are never touched, whatever their age.
            let condition = "id >= ?1 AND id < ?2 AND status <> 'pending' AND updated_at < ?3"
            if dryRun {
                let count = try db.cached("SELECT count(*) FROM deliveries WHERE \(condition)").bind(start, end, cutoff)
                    .scalarInt64()
                return PruneStep(removed: Int(count ?? 0), next: end - 1)
            }
            try db.cached("DELETE FROM deliveries WHERE \(condition)").bind(start, end, cutoff).run()
            return PruneStep(removed: db.changes, next: end - 1)
        }
        return dryRun ? try read(step) : try write(step)
    }

    public func pruneDevices(
        deactivatedBefore: Date, registeredBefore: Date, after: Int64, limit: Int,
        dryRun: Bool
    ) throws(StoreError) -> PruneStep {
        let deactivated = deactivatedBefore.storeMilliseconds
        let registered = registeredBefore.storeMilliseconds
        let step = { (db: Connection) throws -> PruneStep in
            guard let (start, end) = try Self.range(db, "devices", after: after, limit: limit) else {
                return PruneStep(removed: 0, next: nil)
            }
            // An inactive device counts from its deactivation (its reason stays visible that long), an active one
            // from its last registration (`device add`, import, the API's PUT).
            let condition = """
                id >= ?1 AND id < ?2 AND IIF(active = 1, registered_at < ?4, COALESCE(deactivated_at, registered_at) < ?3)
                """
            if dryRun {
                let count = try db.cached(
                    "SELECT count(*), COALESCE(SUM(active = 0), 0) FROM devices WHERE \(condition)"
                )
                .bind(start, end, deactivated, registered)
                defer { count.reset() }
                _ = try count.step()
                return PruneStep(removed: count.int(0), inactive: count.int(1), next: end - 1)
            }
            // Triggers keep device_users and gauge_counts right.
            let delete = try db.cached("DELETE FROM devices WHERE \(condition) RETURNING id, active")
                .bind(start, end, deactivated, registered)
            var removed: [Int64] = []
            var inactive = 0
            while try delete.step() {
                removed.append(delete.int64(0))
                if delete.int(1) == 0 { inactive += 1 }
            }
            delete.reset()
            // Finished deliveries of a removed device are kept as deliveries to its token (found by `log --token`
            // through deliveries_by_unregistered_token). OR IGNORE: a campaign that also has a row for the bare
            // token keeps this one under the old id. Pending ones keep the id: the claim cancels them
            // (DeviceInactive), as for any device that is gone.
            let detach = try db.cached(
                "UPDATE OR IGNORE deliveries SET device_id = NULL WHERE device_id = ?1 AND status <> 'pending'")
            for id in removed { try detach.bind(id).run() }
            return PruneStep(removed: removed.count, inactive: inactive, next: end - 1)
        }
        return dryRun ? try read(step) : try write(step)
    }

    public func freeSpace() throws(StoreError) -> FreeSpace {
        try read { db in
            FreeSpace(
                incremental: try db.prepare("PRAGMA auto_vacuum").scalarInt64() == 2,
                freePages: Int(try db.prepare("PRAGMA freelist_count").scalarInt64() ?? 0),
                pageSize: Int(try db.prepare("PRAGMA page_size").scalarInt64() ?? 0),
                pageCount: Int(try db.prepare("PRAGMA page_count").scalarInt64() ?? 0))
        }
    }

    public func reclaimFreePages(upTo pages: Int) throws(StoreError) -> Int {
        try write { db in
            guard try db.prepare("PRAGMA auto_vacuum").scalarInt64() == 2 else { return 0 }
            let before = try db.prepare("PRAGMA freelist_count").scalarInt64() ?? 0
            try db.execute("PRAGMA incremental_vacuum(\(max(1, pages)))")
            return Int(before - (try db.prepare("PRAGMA freelist_count").scalarInt64() ?? 0))
        }
    }

    public func enableIncrementalVacuum() throws(StoreError) {
        try guarded {
            let db = try db()
            guard try db.prepare("PRAGMA auto_vacuum").scalarInt64() != 2 else { return }
            // Only VACUUM changes the mode of a file that has tables; it copies the file into a temporary database
            // (a file, not memory), then writes it back through the WAL.
            try db.withTemporaryFiles {
                try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
                try db.execute("VACUUM")
                try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
    }

    /// The ids of the next step: from the first row above `after` up to `limit` ids on, never including the
    /// table's newest row (a rowid table hands out MAX(id) + 1 next: deleting the newest row would give its id
    /// again). nil when no row is left to look at.
    private static func range(_ db: Connection, _ table: String, after: Int64, limit: Int) throws -> (Int64, Int64)? {
        guard let last = try db.cached("SELECT MAX(id) FROM \(table)").scalarInt64(),
            let start = try db.cached("SELECT MIN(id) FROM \(table) WHERE id > ?1").bind(after).scalarInt64(),
            start < last
        else { return nil }
        return (start, min(start + Int64(max(1, limit)), last))
    }
}
