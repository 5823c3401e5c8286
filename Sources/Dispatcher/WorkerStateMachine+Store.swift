import Foundation
import QueueModel

/// The results of the store calls the machine asked for, and the faults that interrupt them.
extension WorkerStateMachine {
    /// A store call failed with a fault that may pass (locked, read-only, full, I/O): sending pauses, the outcomes
    /// are kept, and the machine asks to write them again after a backoff until the database accepts them.
    mutating func storageFailed(_ error: StoreError, now: Date) -> [Action] {
        guard fault == nil else {
            fault!.failedAgain(error, now: now, unit: random())
            return []
        }
        fault = StorageFault(error, now: now, unit: random())
        return [
            .log(
                LogLine(
                    .error, "worker.storage_fault", ("error", .string(error.description)),
                    ("outcomes_held", .int(results.count)),
                    ("action", "sending paused; outcomes are kept and written again until the database accepts them")
                ))
        ]
    }

    /// The held outcomes were written (`report`, nil when there were none) and the heartbeat went through.
    mutating func recovered(_ report: RecordReport?, alive: Bool, now: Date) -> [Action] {
        guard let ended = fault else { return [] }
        var actions = report.map { recorded($0, now: now) } ?? []
        fault = nil
        nextClaimAt = now
        idleConfirmed = false
        actions.append(
            .log(
                LogLine(
                    .info, "worker.storage_recovered",
                    ("seconds", .decimal(now.timeIntervalSince(ended.since), places: 1)),
                    ("tries", .int(ended.tries)))))
        if !alive { actions += loseLeases() }
        return actions
    }

    /// Writing again failed: the next try is later; the fault is logged again every 30 s.
    mutating func recoveryFailed(_ error: StoreError, now: Date) -> [Action] {
        guard var fault else { return [] }
        fault.failedAgain(error, now: now, unit: random())
        var actions: [Action] = []
        if now.timeIntervalSince(fault.loggedAt) >= 30 {
            fault.loggedAt = now
            actions.append(
                .log(
                    LogLine(
                        .warning, "worker.storage_fault_continues", ("error", .string(error.description)),
                        ("seconds", .int(Int(now.timeIntervalSince(fault.since)))),
                        ("outcomes_held", .int(results.count)))))
        }
        self.fault = fault
        return actions
    }

    /// The outcomes held were written: logs the devices they deactivated and the bulk campaigns they finished.
    mutating func recorded(_ report: RecordReport, now: Date) -> [Action] {
        var actions: [Action] = []
        if report.devicesDeactivated > 0 {
            activity?.deactivated += report.devicesDeactivated
            var reasons: [String: Int] = [:]
            for result in results {
                if let reason = result.deactivation?.reason { reasons[reason.rawValue, default: 0] += 1 }
            }
            actions.append(
                .log(
                    LogLine(
                        .info, "worker.devices_deactivated", ("devices", .int(report.devicesDeactivated)),
                        (
                            "answers",
                            .string(
                                reasons.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                                    separator: ","))
                        ))))
        }
        let finished = report.completedCampaigns.filter { bulkCampaigns.remove($0.rawValue) != nil }
        if !finished.isEmpty { actions.append(.logFinished(finished)) }
        results.removeAll(keepingCapacity: true)
        idleConfirmed = false
        nextClaimAt = min(nextClaimAt, now.addingTimeInterval(Self.tick))
        return actions
    }

    /// The heartbeat was written; `alive` false: another worker took this one's leases over.
    mutating func heartbeatAnswered(alive: Bool) -> [Action] {
        alive ? [] : loseLeases()
    }

    /// Quiet workers' leases were taken over: what they held is due now.
    mutating func rescued(_ report: RescueReport, now: Date) -> [Action] {
        if report.deliveries > 0 { nextClaimAt = now }
        return logRescue(report)
    }

    func logRescue(_ report: RescueReport) -> [Action] {
        guard !report.workers.isEmpty || report.deliveries > 0 || report.cancelsFinished > 0 else { return [] }
        return [
            .log(
                LogLine(
                    .warning, "worker.stale_leases_taken_over",
                    ("workers", .string(report.workers.map(\.description).joined(separator: ","))),
                    ("deliveries", .int(report.deliveries)), ("cancels_finished", .int(report.cancelsFinished))))
        ]
    }

    /// New cancel requests: nothing more of their campaigns is sent; what is queued is dropped, what waits on the
    /// connections is withdrawn, and once the answered outcomes are written the requests are acknowledged.
    mutating func cancelsRead(_ requests: [CancelRequest]) -> [Action] {
        guard !requests.isEmpty else { return [] }
        var actions: [Action] = []
        for request in requests {
            let campaign = request.campaign.rawValue
            guard cancelled.insert(campaign).inserted else { continue }
            let dropped = work.drop { $0.campaignID.rawValue == campaign }
            summary.cancelled += dropped
            if inFlightByCampaign[campaign, default: 0] > 0 {
                actions.append(
                    .withdraw(groups: [campaign], andLater: true, .cancelled(request.campaign, dropped: dropped)))
            } else {
                actions += withdrew(0, .cancelled(request.campaign, dropped: dropped))
            }
        }
        return actions + [.then(.acknowledgeCancels(requests))]
    }

    /// Continues where the machine asked to, once the actions before were carried out.
    mutating func resume(_ step: Step, now: Date, commits: UInt64) -> [Action] {
        switch step {
        case .acknowledgeCancels(let requests):
            let acknowledged = requests.map { request in
                let campaign = request.campaign.rawValue
                let onWire = inFlightByCampaign[campaign, default: 0] - withdrawnPending[campaign, default: 0]
                return (request: request, inFlight: max(0, onWire))
            }
            // Outcomes answered but not written yet are not pending: written first, the cancel neither counts
            // them as cancelled nor leaves them out of "already sent to APNs".
            return flush(now: now) + [.acknowledgeCancels(acknowledged, upTo: requests.last!.seq)]
        case .claim: return claimIfDue(now: now)
        case .claimSingles: return claimSinglesIfMoved(commits: commits)
        }
    }

    mutating func cancelsAcknowledged(upTo seq: Int64) {
        cancelSeen = seq
    }

    /// Paused campaigns: what this worker holds of them and has not sent goes back to the store, which parks it
    /// until the campaign is resumed; requests already handed to a connection finish and are recorded as usual.
    mutating func pausesRead(_ campaigns: Set<CampaignID>) -> [Action] {
        let ids = Set(campaigns.map(\.rawValue))
        let newlyPaused = ids.subtracting(paused)
        paused = ids
        guard !ids.isEmpty else { return [] }
        var taken: [DeliveryID] = []
        work.drop { job in
            guard ids.contains(job.campaignID.rawValue) else { return false }
            taken.append(job.id)
            return true
        }
        var actions: [Action] = taken.isEmpty ? [] : [.release(taken)]
        for campaign in newlyPaused.sorted() {
            actions.append(
                .log(
                    LogLine(
                        .info, "worker.campaign_paused", ("campaign.id", .string(String(campaign))),
                        ("released", .int(taken.count)))))
        }
        return actions
    }
}
