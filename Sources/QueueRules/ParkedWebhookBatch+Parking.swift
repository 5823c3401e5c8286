import Foundation
import QueueModel

extension ParkedWebhookBatch {
    /// The batch `failure` describes, parked as row `id` at `now`: its times as the store keeps them (milliseconds).
    package init(id: Int64, parking failure: WebhookFailure, at now: Date) {
        self.init(
            id: id, first: failure.first, last: failure.last, events: failure.events, attempts: failure.attempts,
            firstFailureAt: Milliseconds.date(failure.firstFailureAt.storeMilliseconds),
            parkedAt: Milliseconds.date(now.storeMilliseconds), lastError: failure.lastError)
    }
}
