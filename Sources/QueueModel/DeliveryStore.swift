import Foundation

/// What the worker (module Dispatcher) needs from the queue: the worker side of a store (`ProducerStore` is the
/// producer side). `Store` (module Store) implements both on SQLite; another engine
/// (PostgreSQL with `FOR UPDATE SKIP LOCKED`) can stand behind the same protocol, following the rules in
/// SCHEMA.md ("Workers and leases").
///
/// Contract: at-least-once. A worker registers and heartbeats; what it claims is leased to it until it
/// records or releases it; only when its heartbeat is older than the lease duration may another worker take
/// its leases over, or when its process is seen to be gone (same host boot and pid namespace: `takeOver`).
/// Nothing acknowledged to a producer (a returned campaign id) is lost, and only deliveries
/// that were in flight when their worker died can be sent twice.
public protocol DeliveryStore: Actor {
    /// Registers a worker, as `process`; returns its id.
    func registerWorker(_ process: ProcessIdentity, now: Date) async throws(StoreError) -> WorkerID
    /// The worker is alive, and sees `view` (stored with the heartbeat when given); false when it was declared dead
    /// (its leases were taken over).
    func heartbeat(_ worker: WorkerID, view: WorkerView?, now: Date) async throws(StoreError) -> Bool
    /// Takes over the leases of workers whose heartbeat is older than `staleAfter`.
    func rescueStaleWorkers(now: Date, staleAfter: Duration, except: WorkerID?) async throws(StoreError) -> RescueReport
    /// Takes over the leases of these workers, whose processes are known to be gone, and removes their rows.
    func takeOver(_ workers: [WorkerID], now: Date) async throws(StoreError) -> RescueReport
    /// A write that changes nothing, through the path every write takes: throws when this connection cannot write
    /// now (`/readyz`'s `database` check; a file's mode says nothing of a connection already open).
    func probeWrite() async throws(StoreError)
    /// The registered workers with the leases each holds (what another worker judges their liveness from).
    func workers() async throws(StoreError) -> [WorkerRecord]
    /// Releases the worker's leases and removes it.
    func unregisterWorker(_ worker: WorkerID, now: Date) async throws(StoreError) -> Int
    /// Releases deliveries the worker claimed and did not send.
    func release(_ deliveries: [DeliveryID], by worker: WorkerID, now: Date) async throws(StoreError) -> Int
    /// Expands due campaigns into delivery rows, at most `maxPages` pages of `pageSize`.
    func expandDueCampaigns(now: Date, pageSize: Int, maxPages: Int) async throws(StoreError) -> ExpansionReport
    /// Expands one page of due campaigns (of `pageSize` at most) for `worker`, which gets up to `limit` of its
    /// deliveries leased as a claim leases them (the report's `jobs`); what it does not get is left due. With
    /// `limit` 0, SQLite expands nothing (its pages are written as they are sent); PostgreSQL expands a page, so that
    /// its workers, which share pages, find one ahead of them.
    func expandDueCampaigns(now: Date, pageSize: Int, leasing limit: Int, leaseFor: Duration, worker: WorkerID?)
        async throws(StoreError) -> ExpansionReport
    /// Claims and leases up to `limit` due deliveries for `worker`, single sends first.
    func claim(now: Date, limit: Int, leaseFor: Duration, worker: WorkerID?) async throws(StoreError) -> [DeliveryJob]
    /// Claims up to `limit` due single sends only, and only when there are some (a read first, no write
    /// otherwise): for a busy worker, so a notification does not wait behind the bulk work it already holds.
    func claimSingles(now: Date, limit: Int, leaseFor: Duration, worker: WorkerID?) async throws(StoreError)
        -> [DeliveryJob]
    /// Writes a batch of outcomes in one transaction.
    func record(_ results: [DeliveryResult], by worker: WorkerID?, now: Date) async throws(StoreError) -> RecordReport
    /// When the next delivery or campaign becomes due; nil when there is nothing queued.
    func nextDueDate() async throws(StoreError) -> Date?
    /// The paused campaigns: a worker releases what it holds of them (the store parks it until resumed).
    func pausedCampaigns() async throws(StoreError) -> Set<CampaignID>
    /// The campaign (for the worker's campaign lines); `StoreError.unknownCampaign` when there is none.
    func campaign(_ id: CampaignID) async throws(StoreError) -> Campaign
    /// A number that changes whenever another connection to the queue (another process) commits; an idle worker
    /// reads it every tick and claims only when it moved. Not moved by this store's own writes.
    func changeCount() async throws(StoreError) -> Int64
    /// Fired after each of this store's own commits that changed rows (in this process: a producer's enqueue on
    /// the store a worker shares wakes that worker at once).
    nonisolated var commits: WorkSignal { get }
    /// Cancel requests after `seq`.
    func cancelRequests(after seq: Int64) async throws(StoreError) -> [CancelRequest]
    /// Cancel requests not finished yet.
    func openCancelRequests() async throws(StoreError) -> [CancelRequest]
    /// The worker stopped sending these campaigns and has seen every request up to `seq`.
    func acknowledgeCancels(
        _ acknowledged: [(request: CancelRequest, inFlight: Int)], upTo seq: Int64,
        by worker: WorkerID) async throws(StoreError)
}

extension DeliveryStore {
    /// Registers a worker known only by host and pid (tests and tools): its liveness is judged by its heartbeat.
    public func registerWorker(host: String, pid: Int, now: Date = Date()) async throws(StoreError) -> WorkerID {
        try await registerWorker(ProcessIdentity(host: host, pid: pid), now: now)
    }
}
