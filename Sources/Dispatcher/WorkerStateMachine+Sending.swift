import APNs
import Foundation
import HTTP2Transport
import QueueModel
import QueueRules

/// What goes to the transport, and what each answer does to the delivery, its pool and its credential.
extension WorkerStateMachine {
    /// Hands queued work to the transport up to `maxInFlight`: a paused pool gets one probe once its pause is
    /// over, cancelled and expired work is not sent, and work of a pool in an outage is held.
    mutating func submit(now: Date) -> [Action] {
        guard fault == nil else { return [] }
        var actions: [Action] = []
        for environment in work.held.keys where !(work.held[environment]?.isEmpty ?? true) {
            guard !stopping, inFlight < configuration.maxInFlight, outages[environment]?.maySend(now: now) ?? true
            else { continue }
            let job = work.held[environment]!.removeFirst()
            guard let credential = sendingCredential(for: job, now: now, actions: &actions) else { continue }
            outages[environment]?.probeSent()
            actions.append(launch(job, with: credential))
        }
        while !stopping, inFlight < configuration.maxInFlight, let job = work.next() {
            if cancelled.contains(job.campaignID.rawValue) {
                summary.cancelled += 1
                continue
            }
            if DeliveryDecision.isExpired(job, now: now, policy: configuration.retry) {
                let result = DeliveryDecision.expired(job)
                summary.count(result)
                results.append(result)
                continue
            }
            guard let credential = sendingCredential(for: job, now: now, actions: &actions) else { continue }
            if var outage = outages[job.environment], outage.isOut {
                if work.held[job.environment, default: []].isEmpty && outage.maySend(now: now) {
                    outage.probeSent()
                    outages[job.environment] = outage
                } else {
                    work.held[job.environment, default: []].append(job)
                    continue
                }
            }
            actions.append(launch(job, with: credential))
        }
        return actions
    }

    private mutating func launch(_ job: DeliveryJob, with credential: SendingCredential) -> Action {
        inFlight += 1
        inFlightByCampaign[job.campaignID.rawValue, default: 0] += 1
        return .send(job, credential, expired: nil)
    }

    /// The transport answered one request.
    mutating func answered(_ answer: Answer, now: Date) -> [Action] {
        let job = answer.job
        let name = answer.credential.name
        let campaign = job.campaignID.rawValue
        if answer.wasSent { summary.sent += 1 }
        if answer.tokenMinted { summary.tokenRefreshes += 1 }
        var decision: DeliveryDecision?
        if answer.tokenFailure == nil, let result = answer.result {
            decision = DeliveryDecision.decide(
                job: job, answer: result, credential: name, tokenMinted: answer.tokenMinted, now: now,
                policy: configuration.retry, unit: random())
            // Sent again at once with a new token: still in flight.
            if decision!.mintNewToken { return [.send(job, answer.credential, expired: answer.token)] }
        }
        if job.kind == .bulk { bulkCampaigns.insert(campaign) }
        inFlight -= 1
        inFlightByCampaign[campaign, default: 1] -= 1
        if inFlightByCampaign[campaign] == 0 { inFlightByCampaign[campaign] = nil }
        if let failure = answer.tokenFailure {
            // The key cannot sign: a configuration error of this credential only.
            let actions = pauseCredential(
                name, status: nil, reason: .invalidProviderToken, detail: "cannot make a provider token: \(failure)",
                now: now)
            wait(job, of: name, now: now)
            return actions
        }
        guard let result = answer.result, let decision else { return [] }  // never sent: released when the worker ends
        if case .failure(let error) = result, error.kind == .withdrawn {
            if withdrawnPending[campaign, default: 0] > 0 { withdrawnPending[campaign]! -= 1 }
            if cancelled.contains(campaign) { summary.cancelled += 1 }
            return []  // never sent: still leased to us; released when we stop, or cancelled by the cancel
        }
        if case .credentialsRefused(let status, let reason, let credential)? = decision.stop {
            let actions = pauseCredential(
                credential, status: status, reason: reason, detail: "\(status) \(reason)", now: now)
            wait(job, of: credential, now: now)
            return actions
        }
        if let stop = decision.stop { self.stop = self.stop ?? stop }
        var actions: [Action] = []
        if result.status != nil, credentialPauses[name] != nil {
            actions += resumeCredential(name, now: now)
        } else if result.status == nil, var pause = credentialPauses[name], pause.backoff.probing {
            // The probe got no answer: it proved nothing; the next one goes after another pause.
            pause.backoff.unreachable(now: now, unit: random())
            credentialPauses[name] = pause
        }
        if decision.unreachable {
            return actions + holdUnreachable(job, result, now: now)
        }
        actions += reached(job.environment, decision: decision, now: now)
        guard var outcome = decision.result else { return actions }
        if cancelled.contains(campaign) { outcome = outcome.whenCampaignCancelled }
        summary.count(outcome)
        results.append(outcome)
        return actions
    }

    /// APNs could not be reached: the job is held, unspent, and its pool pauses (or pauses longer).
    private mutating func holdUnreachable(_ job: DeliveryJob, _ result: TransportResult, now: Date) -> [Action] {
        guard !stopping, !cancelled.contains(job.campaignID.rawValue) else { return [] }
        let environment = job.environment
        var outage =
            outages[environment] ?? OutageBackoff(base: configuration.retry.base, cap: configuration.retry.cap)
        let wasOut = outage.isOut
        let until = outage.unreachable(now: now, unit: random())
        outages[environment] = outage
        if case .failure(let error) = result { unreachableBecause[environment.rawValue] = error.description }
        work.held[environment, default: []].insert(job, at: 0)
        guard !wasOut else { return [] }
        return [
            .log(
                LogLine(
                    .warning, "worker.apns_unreachable", ("apns.environment", .string(environment.rawValue)),
                    ("reason", .string(unreachableBecause[environment.rawValue] ?? "")),
                    ("pause_seconds", .decimal(until.timeIntervalSince(now), places: 2))))
        ]
    }

    /// An answer reached APNs: a pool in an outage resumes, its held work first.
    private mutating func reached(_ environment: Environment, decision: DeliveryDecision, now: Date) -> [Action] {
        guard decision.result != nil, var outage = outages[environment], outage.isOut else { return [] }
        let seconds = outage.since.map { now.timeIntervalSince($0) } ?? 0
        outage.reached()
        outages[environment] = outage
        unreachableBecause[environment.rawValue] = nil
        let held = work.held[environment] ?? []
        work.held[environment] = nil
        work.requeueFront(held)
        return [
            .log(
                LogLine(
                    .info, "worker.apns_reachable", ("apns.environment", .string(environment.rawValue)),
                    ("outage_seconds", .decimal(seconds, places: 1))))
        ]
    }
}
