import APNs
import Foundation
import QueueModel

extension PostgresStore {
    public func pruneDeliveries(before: Date, after: Int64, limit: Int, dryRun: Bool) throws(StoreError) -> PruneStep {
        throw unfinished()
    }

    public func pruneDevices(deactivatedBefore: Date, registeredBefore: Date, after: Int64, limit: Int, dryRun: Bool) throws(StoreError) -> PruneStep {
        throw unfinished()
    }

    public func freeSpace() throws(StoreError) -> FreeSpace {
        throw unfinished()
    }

    public func reclaimFreePages(upTo pages: Int) throws(StoreError) -> Int {
        throw unfinished()
    }

    public func enableIncrementalVacuum() throws(StoreError) {
        throw unfinished()
    }

    public func backup(to path: String) throws(StoreError) -> Int64 {
        throw unfinished()
    }
}
