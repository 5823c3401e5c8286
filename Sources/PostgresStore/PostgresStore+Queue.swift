import APNs
import Foundation
import QueueModel

extension PostgresStore {
    public func registerWorker(host: String, pid: Int, now: Date) throws(StoreError) -> WorkerID {
        throw unfinished()
    }

    public func heartbeat(_ worker: WorkerID, now: Date) throws(StoreError) -> Bool {
        throw unfinished()
    }

    public func rescueStaleWorkers(now: Date, staleAfter: Duration, except: WorkerID?) throws(StoreError) -> RescueReport {
        throw unfinished()
    }

    public func unregisterWorker(_ worker: WorkerID, now: Date) throws(StoreError) -> Int {
        throw unfinished()
    }

    public func release(_ deliveries: [DeliveryID], by worker: WorkerID, now: Date) throws(StoreError) -> Int {
        throw unfinished()
    }

    public func expandDueCampaigns(now: Date, pageSize: Int, maxPages: Int) throws(StoreError) -> ExpansionReport {
        throw unfinished()
    }

    public func claim(now: Date, limit: Int, leaseFor: Duration, worker: WorkerID?) throws(StoreError) -> [DeliveryJob] {
        throw unfinished()
    }

    public func claimSingles(now: Date, limit: Int, leaseFor: Duration, worker: WorkerID?) throws(StoreError) -> [DeliveryJob] {
        throw unfinished()
    }

    public func record(_ results: [DeliveryResult], by worker: WorkerID?, now: Date) throws(StoreError) -> RecordReport {
        throw unfinished()
    }

    public func nextDueDate() throws(StoreError) -> Date? {
        throw unfinished()
    }

    public func nextRescueDate(now: Date, staleAfter: Duration, silentFor: Duration, except: WorkerID?) throws(StoreError) -> Date? {
        throw unfinished()
    }

    public func workers() throws(StoreError) -> [WorkerRecord] {
        throw unfinished()
    }

    public func cancelRequests(after seq: Int64) throws(StoreError) -> [CancelRequest] {
        throw unfinished()
    }

    public func openCancelRequests() throws(StoreError) -> [CancelRequest] {
        throw unfinished()
    }

    public func acknowledgeCancels(_ acknowledged: [(request: CancelRequest, inFlight: Int)], upTo seq: Int64, by worker: WorkerID) throws(StoreError) {
        throw unfinished()
    }

    public func requestCancel(_ id: CampaignID, now: Date) throws(StoreError) -> CancelRequest? {
        throw unfinished()
    }

    public func workersYetToAcknowledge(_ request: CancelRequest, now: Date, staleAfter: Duration) throws(StoreError) -> [WorkerID] {
        throw unfinished()
    }

    public func finishCancel(_ id: CampaignID, request: CancelRequest?, unacknowledged: Int, now: Date) throws(StoreError) -> CancelReport {
        throw unfinished()
    }
}
