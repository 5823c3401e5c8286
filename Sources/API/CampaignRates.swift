import Foundation
import QueueModel

/// A campaign's sending rate "now" for `GET /v1/campaigns/{id}`, from the finished-delivery counts seen by
/// earlier reads (no scan of its deliveries): the change since a sample at least a second old, else the average
/// since it started. A sample is replaced once it is a second old; past 10,000 campaigns, those not read within a
/// minute are forgotten.
actor CampaignRates {
    private var samples: [CampaignID: (at: Date, finished: Int)] = [:]

    /// Deliveries finished per second, and the seconds left at that rate (nil when unknown or finished).
    func rate(of campaign: Campaign, now: Date) -> (perSecond: Double, eta: Double?) {
        let c = campaign.counters
        let finished = c.total - c.pending
        var rate = 0.0
        if let sample = samples[campaign.id], now.timeIntervalSince(sample.at) >= 1 {
            rate = Double(finished - sample.finished) / now.timeIntervalSince(sample.at)
        } else if let started = campaign.startedAt, campaign.finishedAt == nil, now.timeIntervalSince(started) > 0 {
            rate = Double(finished) / now.timeIntervalSince(started)
        }
        if samples[campaign.id].map({ now.timeIntervalSince($0.at) >= 1 }) ?? true {
            samples[campaign.id] = (now, finished)
        }
        if samples.count > 10_000 { samples = samples.filter { now.timeIntervalSince($0.value.at) < 60 } }
        guard campaign.finishedAt == nil, campaign.status == .running else { return (0, nil) }
        let eta: Double? = rate > 0 && campaign.isExpanded ? Double(c.pending) / rate : nil
        return (max(0, rate), eta)
    }
}
