import Foundation

/// What `/metrics` reads from a store at each scrape: sizes kept by the store's own write paths or answered by an
/// index, never by counting rows, so a scrape costs the same at any database size.
public protocol GaugeStore: Actor {
    /// The queue's and the registry's sizes; the oldest due delivery's age per class as of `now`.
    func gauges(now: Date) async throws(StoreError) -> QueueGauges
    /// The registered workers (a few rows), for `apnsd_workers`.
    func workers() async throws(StoreError) -> [WorkerRecord]
}
