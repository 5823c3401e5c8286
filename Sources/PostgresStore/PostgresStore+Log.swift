import APNs
import Foundation
import QueueModel

extension PostgresStore {
    public func log(_ filter: LogFilter, after: DeliveryID?, limit: Int) throws(StoreError) -> [LogEntry] {
        throw unfinished()
    }

    public func recentLog(_ filter: LogFilter, before: DeliveryID?, limit: Int) throws(StoreError) -> [LogEntry] {
        throw unfinished()
    }

    public func changedLog(_ filter: LogFilter, from: Date, after: DeliveryID?, limit: Int) throws(StoreError) -> [LogEntry] {
        throw unfinished()
    }

    public func lastChanged(_ filter: LogFilter, through: Date, before: DeliveryID?, limit: Int) throws(StoreError) -> [LogEntry] {
        throw unfinished()
    }

    public func attempts(of deliveries: [DeliveryID]) throws(StoreError) -> [DeliveryID: [DeliveryAttempt]] {
        throw unfinished()
    }

    public func stats(since: Date, campaign: CampaignID?, now: Date) throws(StoreError) -> OutcomeStats {
        throw unfinished()
    }
}
