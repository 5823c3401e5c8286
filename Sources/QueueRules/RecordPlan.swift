import QueueModel

/// What a batch of results does once each engine knows which rows it wrote: the counter deltas per campaign,
/// the outcome counts, the deliveries that failed (each writes its event) and the results that deactivate their
/// device. An engine's `record` writes the rows, builds this plan, and executes it.
package struct RecordPlan: Hashable, Sendable {
    /// A delivery row as read when it was not pending (or was held by another worker).
    package struct Row: Hashable, Sendable {
        package var campaign: Int64
        package var status: DeliveryStatus
        /// The worker leasing it (`leased_by`).
        package var holder: Int64?

        package init(campaign: Int64, status: DeliveryStatus, holder: Int64?) {
            self.campaign = campaign
            self.status = status
            self.holder = holder
        }
    }

    /// Results applied and ignored (`devicesDeactivated` and `completedCampaigns` are the engine's to fill).
    package var report = RecordReport()
    /// How each campaign's counters move.
    package var deltas: [Int64: CampaignCounters] = [:]
    /// This minute's outcome counts.
    package var outcomes: [OutcomeKey: OutcomeCount] = [:]
    /// This minute's outcome counts per campaign (a campaign's chart and reasons); the store keeps those of bulk
    /// campaigns.
    package var campaignOutcomes: [CampaignOutcomeKey: OutcomeCount] = [:]
    /// Deliveries that ended `failed`, in batch order: each writes a `delivery.failed` event.
    package var failed: [Int64] = []
    /// Applied results that ask to deactivate their device, in batch order; the first to deactivate a device
    /// does (a later one finds it inactive already), and each that does writes a `device.deactivated` event.
    package var deactivations: [DeliveryResult] = []

    /// The status `result` is written over when its row was not written as pending: the row's, when the rules
    /// let this result replace it; nil when the result changes nothing (no such row, a row of another campaign,
    /// a retry of a row another worker took over, or a final status that does not accept it).
    package static func replaceable(_ result: DeliveryResult, row: Row?, by worker: WorkerID?) -> DeliveryStatus? {
        guard let row, row.campaign == result.campaignID.rawValue else { return nil }
        if case .retry = result.disposition, Lease.yieldsRetry(by: worker, heldBy: row.holder) { return nil }
        return row.status.accepts(result.disposition) ? row.status : nil
    }

    /// The plan of `results`, of which each replaced the status at the same index of `replaced` (nil: ignored).
    package init(_ results: [DeliveryResult], replaced: [DeliveryStatus?]) {
        precondition(results.count == replaced.count, "one replaced status per result")
        for (result, old) in zip(results, replaced) {
            guard let old else {
                report.ignored += 1
                continue
            }
            report.applied += 1
            let campaign = result.campaignID.rawValue
            let new = result.disposition.status
            if new != old {
                deltas[campaign, default: CampaignCounters()][old] -= 1
                deltas[campaign, default: CampaignCounters()][new] += 1
            }
            let key = OutcomeKey(result)
            let request = result.countsAsAttempt ? 1 : 0
            outcomes[key, default: OutcomeCount()].count += 1
            outcomes[key, default: OutcomeCount()].requests += request
            let campaignKey = CampaignOutcomeKey(campaign: campaign, outcome: key)
            campaignOutcomes[campaignKey, default: OutcomeCount()].count += 1
            campaignOutcomes[campaignKey, default: OutcomeCount()].requests += request
            if new == .failed { failed.append(result.deliveryID.rawValue) }
            if result.deactivation != nil, result.token != nil { deactivations.append(result) }
        }
    }

    /// The campaigns whose counters move, in id order (a completion check looks at each).
    package var campaigns: [Int64] { deltas.keys.sorted() }
}
