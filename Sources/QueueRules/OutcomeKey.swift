import QueueModel

/// One bucket of the per-minute outcome counters: a result's final status (`retry` for an answer to be tried
/// again) and its reason (`none` without one).
package struct OutcomeKey: Hashable, Sendable, Comparable {
    package var status: String
    package var reason: String

    package init(status: String, reason: String) {
        self.status = status
        self.reason = reason
    }

    package init(_ result: DeliveryResult) {
        if case .retry = result.disposition {
            status = "retry"
        } else {
            status = result.disposition.status.rawValue
        }
        reason = result.reason?.rawValue ?? "none"
    }

    package static func < (a: OutcomeKey, b: OutcomeKey) -> Bool { (a.status, a.reason) < (b.status, b.reason) }
}

/// One bucket of a campaign's per-minute outcome counters: the campaign and the outcome (a result's final status,
/// `retry` for an answer to be tried again, and its reason).
package struct CampaignOutcomeKey: Hashable, Sendable, Comparable {
    package var campaign: Int64
    package var outcome: OutcomeKey

    package init(campaign: Int64, outcome: OutcomeKey) {
        self.campaign = campaign
        self.outcome = outcome
    }

    package static func < (a: CampaignOutcomeKey, b: CampaignOutcomeKey) -> Bool {
        a.campaign != b.campaign ? a.campaign < b.campaign : a.outcome < b.outcome
    }
}

/// How many results of a batch fell in one outcome bucket, and how many of them were requests sent.
package struct OutcomeCount: Hashable, Sendable {
    package var count = 0
    package var requests = 0

    package init(count: Int = 0, requests: Int = 0) {
        self.count = count
        self.requests = requests
    }
}
