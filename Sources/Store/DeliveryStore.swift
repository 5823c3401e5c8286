import Foundation

/// What the worker (module Dispatch) needs from the queue. `Store` implements it on SQLite; another engine
/// (PostgreSQL with `FOR UPDATE SKIP LOCKED`, many workers) can stand behind the same protocol.
///
/// Contract: at-least-once. Claimed deliveries are leased; a lease that is neither recorded nor released
/// expires, and the delivery is claimed again. Nothing acknowledged to a producer (a returned campaign id) is
/// lost, and only deliveries that were in flight can be sent twice.
public protocol DeliveryStore: Actor {
    /// Releases all leases (at worker start, one worker per database); returns how many.
    func releaseLeases(now: Date) async throws(StoreError) -> Int
    /// Expands due campaigns into delivery rows, at most `maxPages` pages of `pageSize`.
    func expandDueCampaigns(now: Date, pageSize: Int, maxPages: Int) async throws(StoreError) -> ExpansionReport
    /// Claims and leases up to `limit` due deliveries, single sends first.
    func claim(now: Date, limit: Int, leaseFor: Duration) async throws(StoreError) -> [DeliveryJob]
    /// Writes a batch of outcomes in one transaction.
    func record(_ results: [DeliveryResult], now: Date) async throws(StoreError) -> RecordReport
    /// When the next delivery or campaign becomes due; nil when there is nothing queued.
    func nextDueDate() async throws(StoreError) -> Date?
}

extension Store: DeliveryStore {}
