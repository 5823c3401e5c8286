import Foundation
import HTTP2Transport
import Intake
import Logging
import QueueModel

/// `apnsd webhook retry`: every parked batch POSTed once more, oldest first, signed afresh. Its events reach the
/// receiver after later ones did (out of order: receivers order by `at` or `id` when they care). A batch answered
/// 2xx is no longer parked; one refused again stays, its attempts and error updated; one whose events retention
/// pruned meanwhile is dropped.
public enum WebhookRetry {
    /// What one retry did, batch by batch.
    public struct Report: Sendable {
        public var delivered: [ParkedWebhookBatch] = []
        /// Refused again, with why.
        public var refused: [(batch: ParkedWebhookBatch, error: String)] = []
        /// Dropped: their events were pruned.
        public var pruned: [ParkedWebhookBatch] = []
    }

    /// Sends `store`'s parked batches to `url` once each.
    public static func run(
        store: any EventStore, url: String, signing: WebhookSigning, post: HTTPExchange = HTTPExchange(),
        clock: @Sendable () -> Date = { Date() }, logger: Logger
    ) async throws(StoreError) -> Report {
        let logger = logger.with("webhook.url", .string(WebhookSender.redacted(url)))
        var report = Report()
        for batch in try await store.parkedWebhookBatches() {
            let events = try await store.events(after: EventID(batch.first.rawValue - 1), limit: max(batch.events, 1))
                .filter { $0.id <= batch.last }
            guard !events.isEmpty else {
                _ = try await store.removeParkedWebhookBatch(id: batch.id)
                report.pruned.append(batch)
                continue
            }
            let body = Array(Event.webhookBody(events).utf8)
            let why: String
            do {
                let response = try await post.send(
                    url: url, headers: signing.headers(body: body, at: clock()), body: body)
                if response.isSuccess {
                    _ = try await store.removeParkedWebhookBatch(id: batch.id)
                    report.delivered.append(batch)
                    logger.info(
                        "webhook.retried", ("batch", .string(String(batch.id))), ("events", .int(events.count)),
                        ("status", .int(response.status)))
                    continue
                }
                why = "HTTP \(response.status)"
            } catch {
                why = "\(error)".replacingOccurrences(of: url, with: WebhookSender.redacted(url))
            }
            try await store.recordParkedWebhookRefusal(id: batch.id, error: why)
            report.refused.append((batch, why))
            logger.warning("webhook.retry_failed", ("batch", .string(String(batch.id))), ("error", .string(why)))
        }
        return report
    }
}
