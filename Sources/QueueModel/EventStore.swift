import Foundation

/// What the event feed and the webhook need from a store. Events are written by the store itself, in the
/// transaction of the change they report (deactivations, failed deliveries); ids increase in commit order.
public protocol EventStore: Actor {
    /// Events with an id greater than `after` (all when nil), in id order, at most `limit`.
    func events(after: EventID?, limit: Int) async throws(StoreError) -> [Event]
    /// The newest `limit` events, in id order.
    func latestEvents(limit: Int) async throws(StoreError) -> [Event]
    /// The last event the webhook acknowledged (nil before the first).
    func webhookCursor() async throws(StoreError) -> EventID?
    /// Records that the webhook acknowledged every event up to `cursor`; a cursor never moves back. A failure
    /// recorded for a batch it passes is over and removed.
    func advanceWebhookCursor(to cursor: EventID, now: Date) async throws(StoreError)
    /// The batch the webhook is failing to deliver (nil when the last attempt succeeded, or before any).
    func webhookFailure() async throws(StoreError) -> WebhookFailure?
    /// Records `failure`, replacing the one recorded before.
    func recordWebhookFailure(_ failure: WebhookFailure) async throws(StoreError)
    /// Sets `failure`'s batch aside in one transaction: a parked batch, the cursor moved to its last event (later
    /// events go on; retention counts it acknowledged), the failure removed. Returns the parked batch; nil, with
    /// nothing written, when the cursor is already past the batch (another process delivered or parked it).
    func parkWebhookBatch(_ failure: WebhookFailure, now: Date) async throws(StoreError) -> ParkedWebhookBatch?
    /// The parked batches, oldest first.
    func parkedWebhookBatches() async throws(StoreError) -> [ParkedWebhookBatch]
    /// Removes a parked batch (delivered again, or its events all pruned); false when there was none `id`.
    func removeParkedWebhookBatch(id: Int64) async throws(StoreError) -> Bool
    /// Records another refused attempt of parked batch `id`, with its error.
    func recordParkedWebhookRefusal(id: Int64, error: String) async throws(StoreError)
    /// Deletes events written before `cutoff`; with `keepUndelivered`, only those the webhook acknowledged.
    /// Returns how many were deleted.
    func pruneEvents(writtenBefore cutoff: Date, keepUndelivered: Bool) async throws(StoreError) -> Int
    /// Fired after every commit of this store object that wrote events (not other processes').
    nonisolated var eventCommits: WorkSignal { get }
}
