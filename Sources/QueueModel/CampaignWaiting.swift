import APNs
import Foundation

/// Why a running campaign's pending deliveries are not going out, from the live workers' stored views: what
/// `GET /v1/campaigns/{id}`, `campaign show --json` and `campaign watch` report as `waiting`. A value decision on
/// the rows read, tested without I/O.
public enum CampaignWaiting {
    /// Nil unless `campaign` runs (not paused) with pending deliveries and every live worker (heartbeat within
    /// `lease` of `now`) with a view waits for it: its database refuses writes; the credential that sends the
    /// campaign's topic (`credential`, when known) is refused, or all of its credentials are; the campaign's
    /// environment (its audience's, when it names one) is unreachable, or every environment it used is. The reason
    /// is the one that began first. No live worker: nil (nothing is waiting on a fault; nothing is sending either,
    /// which `apnsd status` shows).
    public static func reason(
        for campaign: Campaign, workers: [WorkerRecord], credential: String?, now: Date, lease: Duration
    ) -> WorkerView.Waiting? {
        guard campaign.status == .running, !campaign.isPaused, campaign.counters.pending > 0 else { return nil }
        let views = workers.filter { !$0.isStale(now: now, lease: lease) }.compactMap(\.view)
        guard !views.isEmpty else { return nil }
        var reasons: [WorkerView.Waiting] = []
        for view in views {
            guard let reason = reason(in: view, environment: campaign.audience.environment, credential: credential)
            else { return nil }
            reasons.append(reason)
        }
        return reasons.min { $0.since < $1.since }
    }

    /// Why one worker cannot send for a campaign to `environment` through `credential` (either nil: unknown).
    static func reason(in view: WorkerView, environment: Environment?, credential: String?) -> WorkerView.Waiting? {
        if let waiting = view.waiting, waiting.reason == .storageFault { return waiting }
        if let credential, let seen = view.credentials.first(where: { $0.name == credential }),
            seen.paused != nil, let since = seen.pausedSince
        {
            return .init(reason: .credentialRefused, since: since)
        }
        if let environment, let seen = view.apns[environment.rawValue], !seen.reachable, let since = seen.since {
            return .init(reason: .apnsUnreachable, since: since)
        }
        return view.waiting
    }
}
