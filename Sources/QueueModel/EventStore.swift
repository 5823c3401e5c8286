import Foundation

/// What the event feed and the webhook need from a store. Events are written by the store itself, in the
/// transaction of the change they report (deactivations, failed deliveries); ids increase in commit order.
public protocol EventStore: Actor {
    /// Events with an id greater than `after` (all when nil), in id order, at most `limit`.
    func events(after: EventID?, limit: Int) async throws(StoreError) -> [Event]
    /// The last event the webhook acknowledged (nil before the first).
    func webhookCursor() async throws(StoreError) -> EventID?
    /// Records that the webhook acknowledged every event up to `cursor`; a cursor never moves back.
    func advanceWebhookCursor(to cursor: EventID, now: Date) async throws(StoreError)
    /// Deletes events written before `cutoff`; with `keepUndelivered`, only those the webhook acknowledged.
    /// Returns how many were deleted.
    func pruneEvents(writtenBefore cutoff: Date, keepUndelivered: Bool) async throws(StoreError) -> Int
    /// Fired after every commit of this store object that wrote events (not other processes').
    nonisolated var eventCommits: WorkSignal { get }
}
