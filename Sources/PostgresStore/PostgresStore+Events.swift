import APNs
import Foundation
import QueueModel

extension PostgresStore {
    public func events(after: EventID?, limit: Int) throws(StoreError) -> [Event] {
        throw unfinished()
    }

    public func webhookCursor() throws(StoreError) -> EventID? {
        throw unfinished()
    }

    public func advanceWebhookCursor(to cursor: EventID, now: Date) throws(StoreError) {
        throw unfinished()
    }

    public func pruneEvents(writtenBefore cutoff: Date, keepUndelivered: Bool) throws(StoreError) -> Int {
        throw unfinished()
    }

    public func gauges(now: Date) throws(StoreError) -> QueueGauges {
        throw unfinished()
    }
}
