import APNs
import Foundation
import QueueModel

/// Registration, the turn of the clock (stopping, recovery, heartbeats, cancels, reloads), losing the leases,
/// and when outcomes are written.
extension WorkerStateMachine {
    /// The store registered this run as `id`; `cancelled` are the campaigns with open cancel requests.
    mutating func registered(
        _ id: WorkerID, rescued: RescueReport, cancelled: [CancelRequest], cancelSeen: Int64, now: Date
    ) -> [Action] {
        self.id = id
        for request in cancelled { self.cancelled.insert(request.campaign.rawValue) }
        self.cancelSeen = cancelSeen
        lastFlush = now
        nextHeartbeat = now.addingTimeInterval(configuration.heartbeat.seconds)
        return logRescue(rescued) + [.log(LogLine(.info, "worker.registered", ("worker.id", .string(id.description))))]
    }

    /// What is due at `now` by time rather than by an answer: stopping on a signal, storage recovery, heartbeat
    /// and takeover, a look at the other workers, cancels and pauses, expiry of held work, a reload, certificates,
    /// activity lines, and giving up on an outage with `--until-idle`. `configuration`, `credentials` and `generation` are this turn's.
    mutating func turn(
        now: Date, stopAsked: Bool, abandonAsked: Bool, configuration: WorkerConfiguration,
        credentials: CredentialSet, generation: Int
    ) -> [Action] {
        self.configuration = configuration
        self.credentials = credentials
        var actions: [Action] = []
        if !stopping && (stopAsked || stop != nil) { actions += beginStopping(why: stop != nil ? "error" : "signal") }
        if stopping, let fault, abandonAsked {
            abandoned = true
            return actions + [
                .log(
                    LogLine(
                        .error, "worker.abandoned", ("outcomes_lost", .int(results.count)),
                        ("error", .string(fault.error.description))))
            ]
        }
        if fault != nil {
            if let fault, now >= fault.nextTry { actions.append(.recover(results)) }
            return actions
        }
        if now >= nextHeartbeat {
            nextHeartbeat = now.addingTimeInterval(configuration.heartbeat.seconds)
            actions += [.heartbeat, .rescue]
        }
        if now >= nextWorkersLook {
            nextWorkersLook = now.addingTimeInterval(configuration.heartbeat.seconds)
            actions.append(.readWorkers)
        }
        if now >= nextCancelPoll {
            nextCancelPoll = now.addingTimeInterval(configuration.cancelPollInterval.seconds)
            actions += [.readCancels(after: cancelSeen), .readPauses]
        }
        expireHeld(now: now)
        if generation != credentialsGeneration {
            credentialsGeneration = generation
            actions += endCredentialPauses(now: now)
        }
        actions += checkCertificates(now: now)
        if untilIdle && !stopping && !credentialPauses.isEmpty
            && credentials.byName.keys.allSatisfy({ credentialPauses[$0] != nil })
        {
            actions += beginStopping(why: "every credential refused")
        }
        actions += reportThroughput(now: now)
        if now >= nextConnectionSample {
            nextConnectionSample = now.addingTimeInterval(Self.connectionSampleInterval)
            actions.append(.sampleConnections)
        }
        actions += giveUpOnOutage(now: now)
        return actions
    }

    /// With `--until-idle`: APNs stayed unreachable longer than the limit, so the run ends with the work left.
    private mutating func giveUpOnOutage(now: Date) -> [Action] {
        guard untilIdle && !stopping, let since = outages.values.compactMap(\.since).min(),
            now.timeIntervalSince(since) > (configuration.unreachableLimit ?? configuration.retry.cap).seconds
        else { return [] }
        let reasons = unreachableBecause.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "; ")
        gaveUp = .unreachable(seconds: Int(now.timeIntervalSince(since).rounded()), because: reasons)
        let line = LogLine(
            .error, "worker.gave_up_unreachable", ("seconds", .int(Int(now.timeIntervalSince(since)))),
            ("reason", .string(reasons)))
        return [.log(line)] + beginStopping(why: "APNs unreachable")
    }

    /// Stops claiming and sending: drops what waits in memory (released when the worker ends) and withdraws
    /// its requests that have not started on the wire; those on the wire finish and are recorded.
    mutating func beginStopping(why: String) -> [Action] {
        stopping = true
        let dropped = work.drop { _ in true }
        let groups = Set(inFlightByCampaign.keys)
        guard groups.isEmpty else {
            return [.withdraw(groups: groups, andLater: true, .stopping(why: why, dropped: dropped))]
        }
        return withdrew(0, .stopping(why: why, dropped: dropped))
    }

    /// The transport took `count` requests back for `why`.
    mutating func withdrew(_ count: Int, _ why: Withdrawal) -> [Action] {
        switch why {
        case .stopping(let reason, let dropped):
            return [
                .log(
                    LogLine(
                        .info, "worker.stopping", ("why", .string(reason)), ("in_flight", .int(inFlight - count)),
                        ("withdrawn", .int(count)), ("unsent_released", .int(dropped))))
            ]
        case .leasesLost(let dropped):
            return [.register(lost: id, dropped: dropped + count)]
        case .cancelled(let campaign, let dropped):
            withdrawnPending[campaign.rawValue, default: 0] += count
            return [
                .log(
                    LogLine(
                        .info, "worker.campaign_cancelled", ("campaign.id", .string(campaign.description)),
                        ("dropped", .int(dropped)), ("withdrawn", .int(count))))
            ]
        }
    }

    /// Drops what the worker holds unsent and withdraws its requests not yet on the wire: another worker took
    /// the leases over (our heartbeat was stale), so they are no longer ours.
    mutating func loseLeases() -> [Action] {
        let dropped = work.drop { _ in true }
        let groups = Set(inFlightByCampaign.keys)
        guard groups.isEmpty else { return [.withdraw(groups: groups, andLater: false, .leasesLost(dropped: dropped))] }
        return withdrew(0, .leasesLost(dropped: dropped))
    }

    /// Registered again as `id` after losing the leases of `lost`.
    mutating func reregistered(_ id: WorkerID, lost: WorkerID, dropped: Int) -> [Action] {
        self.id = id
        return [
            .log(
                LogLine(
                    .warning, "worker.leases_lost", ("worker.id", .string(lost.description)),
                    ("new_worker.id", .string(id.description)), ("dropped", .int(dropped)),
                    ("why", "the heartbeat was older than worker.lease and another worker took the leases over")))
        ]
    }

    private mutating func expireHeld(now: Date) {
        for environment in work.held.keys {
            work.held[environment]!.removeAll { job in
                guard DeliveryDecision.isExpired(job, now: now, policy: configuration.retry) else { return false }
                let result = DeliveryDecision.expired(job)
                summary.count(result)
                results.append(result)
                return true
            }
        }
    }

    /// Outcomes wait to be written until a batch is full, nothing is in flight, or `recordInterval` passed.
    mutating func flushIfDue(now: Date) -> [Action] {
        guard
            !results.isEmpty
                && (results.count >= configuration.recordBatch || inFlight == 0
                    || now.timeIntervalSince(lastFlush) >= configuration.recordInterval.seconds)
        else { return [] }
        return flush(now: now)
    }

    mutating func flush(now: Date) -> [Action] {
        lastFlush = now
        guard !results.isEmpty, fault == nil else { return [] }
        return [.record(results)]
    }
}
