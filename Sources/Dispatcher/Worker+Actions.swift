import APNs
import Foundation
import HTTP2Transport
import QueueModel
import QueueRules

extension Worker {
    /// Carries out `actions` in order, each one's follow-ups before the next. While a storage fault lasts, store
    /// calls are skipped (the machine asks to write again when its backoff allows).
    func perform(_ actions: [WorkerStateMachine.Action], _ machine: inout WorkerStateMachine) async throws {
        for action in actions {
            if machine.fault != nil && action.callsStore { continue }
            let next: [WorkerStateMachine.Action]
            do {
                next = try await carryOut(action, &machine)
            } catch let error as StoreError where error.isTransient {
                next = machine.storageFailed(error, now: clock())
            }
            if !next.isEmpty { try await perform(next, &machine) }
        }
    }

    /// Does what `action` asks and returns what the machine makes of the result.
    private func carryOut(_ action: WorkerStateMachine.Action, _ machine: inout WorkerStateMachine) async throws
        -> [WorkerStateMachine.Action]
    {
        let (id, lease, now) = (machine.id, machine.configuration.lease, clock())
        switch action {
        case .send(let job, let credential, let expired):
            await dispatch(job, with: credential, after: expired)
            return []
        case .withdraw(let groups, let andLater, let why):
            let count = await transport.withdraw(groups: groups, andLater: andLater)
            return machine.withdrew(count, why)
        case .heartbeat:
            let view = view(unreachable: machine.unreachableSince, fault: nil)
            let alive = try await store.heartbeat(id, view: view, now: now)
            return machine.heartbeatAnswered(alive: alive)
        case .rescue:
            let report = try await store.rescueStaleWorkers(now: now, staleAfter: lease, except: id)
            return machine.rescued(report, now: now)
        case .readWorkers:
            return machine.workersSeen(try await seeWorkers(from: machine.process), now: now)
        case .takeOver(let workers):
            let report = try await store.takeOver(workers, now: now)
            return machine.tookOver(report, now: now)
        case .register(let lost, let dropped):
            let new = try await store.registerWorker(machine.process, now: now)
            logger.setShared("worker.id", .string(new.description))
            return machine.reregistered(new, lost: lost, dropped: dropped)
        case .readCancels(let after):
            let requests = try await store.cancelRequests(after: after)
            return machine.cancelsRead(requests)
        case .acknowledgeCancels(let acknowledged, let seq):
            try await store.acknowledgeCancels(acknowledged, upTo: seq, by: id)
            machine.cancelsAcknowledged(upTo: seq)
            return []
        case .readPauses:
            let campaigns = try await store.pausedCampaigns()
            return machine.pausesRead(campaigns)
        case .release(let deliveries):
            _ = try await store.release(deliveries, by: id, now: now)
            return []
        case .readChangeCount(let check):
            let changes = try await store.changeCount()
            machine.changeCountRead(changes, for: check, now: now)
            return []
        case .expand(let pageSize, let limit):
            let report = try await store.expandDueCampaigns(
                now: now, pageSize: pageSize, leasing: limit, leaseFor: lease, worker: id)
            await reportExpansion(report)
            return machine.expanded(report.jobs, limit: limit, report: report, now: now)
        case .claim(let limit):
            let commits = store.commits.current
            let changes = try await store.changeCount()
            let jobs = try await store.claim(now: now, limit: limit, leaseFor: lease, worker: id)
            return machine.claimed(jobs, limit: limit, commits: commits, changes: changes, now: now)
        case .claimSingles(let limit):
            let jobs = try await store.claimSingles(now: now, limit: limit, leaseFor: lease, worker: id)
            machine.singlesClaimed(jobs)
            return []
        case .findNextDates:
            let due = try await store.nextDueDate()
            return machine.nextDatesFound(due: due, workers: try await seeWorkers(from: machine.process), now: now)
        case .record(let results):
            let report = try await store.record(results, by: id, now: now)
            reportRecorded(results)
            return machine.recorded(report, now: now)
        case .recover(let results):
            let outcome = await recover(
                results, by: id, now: now, unreachable: machine.unreachableSince, fault: machine.fault?.since)
            switch outcome {
            case .success(let (report, alive)): return machine.recovered(report, alive: alive, now: now)
            case .failure(let error) where error.isTransient: return machine.recoveryFailed(error, now: now)
            case .failure(let error): throw error
            }
        case .logFinished(let campaigns):
            for id in campaigns {
                guard let campaign = try? await store.campaign(id) else { continue }
                logCampaignFinished(campaign)
            }
            return []
        case .sampleConnections:
            return machine.connectionsSampled(transport.stats)
        case .log(let line):
            logger.log(line.level, line.message, line.fields)
            return []
        case .connectFailed(let environment, let reason, let count):
            observer?.connectFailed(environment, reason: reason, count: count)
            return []
        case .credentialStatus(let name, let pause):
            credentialStates.withLock { states in
                states[name, default: CredentialStatus(name: name)].paused = pause?.detail
                states[name]!.pausedSince = pause?.since
                states[name]!.nextProbe = pause?.nextProbe
            }
            return []
        case .resetCredentialStatuses:
            let credentials = machine.credentials
            credentialStates.withLock { $0 = Self.statuses(of: credentials) }
            return []
        case .then(let step):
            return machine.resume(step, now: now, commits: store.commits.current)
        }
    }

    /// The registered workers, each with what `ours`'s host sees of its process where its pid means something here.
    private func seeWorkers(from ours: ProcessIdentity) async throws(StoreError) -> [WorkerStateMachine.Seen] {
        let liveness = Liveness(ours: ours, heartbeat: configuration.heartbeat, lease: configuration.lease)
        return try await store.workers().map { record in
            WorkerStateMachine.Seen(
                record: record, process: liveness.canSee(record.process) ? ProcessState.probe(record.pid) : nil)
        }
    }

    /// Writes the outcomes held through a storage fault (if any) and heartbeats. When the outcomes cannot be
    /// written, a heartbeat saying so (`storage_fault`) is still tried: a database that refuses a large write may
    /// take a one-row update.
    private func recover(
        _ results: [DeliveryResult], by id: WorkerID, now: Date, unreachable: [Environment: Date], fault: Date?
    ) async -> Result<(RecordReport?, Bool), StoreError> {
        let report: RecordReport?
        do throws(StoreError) {
            report = results.isEmpty ? nil : try await store.record(results, by: id, now: now)
        } catch {
            _ = try? await store.heartbeat(id, view: view(unreachable: unreachable, fault: fault ?? now), now: now)
            return .failure(error)
        }
        if report != nil { reportRecorded(results) }
        do throws(StoreError) {
            let alive = try await store.heartbeat(id, view: view(unreachable: unreachable, fault: nil), now: now)
            return .success((report, alive))
        } catch {
            return .failure(error)
        }
    }

    func reportRecorded(_ results: [DeliveryResult]) {
        guard let observer else { return }
        let final = results.filter { if case .retry = $0.disposition { false } else { true } }
        if !final.isEmpty { observer.recorded(final: final) }
    }
}
