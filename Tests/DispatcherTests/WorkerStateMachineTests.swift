import APNs
import Foundation
import HTTP2Transport
import QueueModel
import Testing

@testable import Dispatcher

/// The worker's decisions as events and actions, on an injected clock, without a store or a server.
@Suite struct WorkerStateMachineTests {
    typealias Machine = WorkerStateMachine
    typealias Action = WorkerStateMachine.Action

    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let credential = SendingCredential(
        name: "default", authorization: .certificate(notAfter: .distantFuture, fingerprint: "fixture"))
    static let credentials = CredentialSet(only: credential)
    static let configuration = WorkerConfiguration(
        claimBatch: 10, maxInFlight: 4, retry: RetryPolicy(base: .seconds(1), cap: .seconds(60), maxAttempts: 5))

    static func machine(untilIdle: Bool = false, process: ProcessIdentity = here) -> Machine {
        var machine = Machine(
            configuration: configuration, credentials: credentials, generation: 0, untilIdle: untilIdle,
            process: process, random: { 0.5 })
        _ = machine.registered(WorkerID(1), rescued: RescueReport(), cancelled: [], cancelSeen: 0, now: start)
        return machine
    }

    /// This process, as `/proc` told at start.
    static let here = ProcessIdentity(host: "here", pid: 100, bootID: "boot-1", pidNamespace: 7, startTime: 500)

    /// Another worker's row: on this host's boot and pid namespace unless `boot` says otherwise.
    static func other(
        _ id: Int64, pid: Int, host: String = "here", boot: String = "boot-1", startTime: Int64 = 900,
        heartbeat: Date = start, leases: Int = 5
    ) -> WorkerRecord {
        WorkerRecord(
            id: WorkerID(id),
            process: ProcessIdentity(host: host, pid: pid, bootID: boot, pidNamespace: 7, startTime: startTime),
            startedAt: heartbeat, heartbeatAt: heartbeat, leases: leases)
    }

    static func job(_ id: Int64, campaign: Int64 = 1) -> DeliveryJob {
        DeliveryJob(
            id: DeliveryID(id), campaignID: CampaignID(campaign), kind: .bulk,
            token: try! DeviceToken(String(format: "%064llx", id)), environment: .production,
            content: try! NotificationContent(bundleID: "com.example.app", payload: Payload(json: #"{"aps":{}}"#)),
            attempts: 0, deviceRegisteredAt: nil, leasedUntil: start.addingTimeInterval(30))
    }

    static func answer(_ job: DeliveryJob, _ result: TransportResult, tokenMinted: Bool = false) -> Machine.Answer {
        Machine.Answer(
            job: job, credential: credential, result: result, token: nil, tokenMinted: tokenMinted, tokenFailure: nil)
    }

    static func status(_ status: Int, _ reason: Reason? = nil) -> TransportResult {
        .response(status: status, apnsID: nil, body: ErrorResponse(status: status, reason: reason))
    }

    static let unreachable = TransportResult.failure(
        TransportError(
            kind: .connect, curlCode: 7, message: "Couldn't connect to server", isConnectionFatal: true,
            isRetryable: true))

    /// Claims `jobs` (fewer than asked for) and hands what fits to the transport; returns the jobs sent.
    static func claimAndSend(_ jobs: [DeliveryJob], _ machine: inout Machine, now: Date = start) -> [DeliveryJob] {
        _ = machine.claimed(jobs, limit: 10, commits: 0, changes: 0, now: now)
        return machine.submit(now: now).sent
    }

    @Test func anOutageHoldsThePoolThenOneProbeGoesAndItsAnswerResumesIt() {
        var machine = Self.machine()
        let jobs = (1...3).map { Self.job($0) }
        #expect(Self.claimAndSend(jobs, &machine).map(\.id) == jobs.map(\.id))
        #expect(
            machine.answered(Self.answer(jobs[0], Self.unreachable), now: Self.start).logged == [
                "worker.apns_unreachable"
            ])
        #expect(machine.answered(Self.answer(jobs[1], Self.unreachable), now: Self.start).logged.isEmpty)
        #expect(machine.results.isEmpty && machine.heldCount == 2, "held, no attempt spent")

        // Paused for base (1 s): nothing goes, not even newly claimed work of that pool.
        #expect(Self.claimAndSend([Self.job(4)], &machine, now: Self.start.addingTimeInterval(0.5)).isEmpty)
        #expect(machine.heldCount == 3)
        let probeTime = Self.start.addingTimeInterval(1)
        let probe = machine.submit(now: probeTime).sent
        #expect(probe.map(\.id) == [DeliveryID(2)], "one probe, of held work")
        #expect(machine.submit(now: probeTime).sent.isEmpty, "no second request while the probe is out")

        let reached = machine.answered(Self.answer(probe[0], Self.status(200)), now: probeTime)
        #expect(reached.logged == ["worker.apns_reachable"])
        #expect(machine.results.map(\.disposition) == [.accepted])
        #expect(Set(machine.submit(now: probeTime).sent.map(\.id)) == [DeliveryID(1), DeliveryID(4)])
        #expect(machine.heldCount == 0)
    }

    @Test func aRefusedCredentialPausesItsDeliveriesUntilAProbeIsAnswered() {
        var machine = Self.machine()
        let jobs = (1...2).map { Self.job($0) }
        _ = Self.claimAndSend(jobs, &machine)
        let refused = machine.answered(Self.answer(jobs[0], Self.status(403, .invalidProviderToken)), now: Self.start)
        #expect(refused.logged == ["worker.credential_paused"])
        #expect(refused.pausedCredentials == ["default": true])
        #expect(machine.stop == nil, "the worker goes on: only this credential waits")
        _ = machine.answered(Self.answer(jobs[1], Self.status(403, .invalidProviderToken)), now: Self.start)
        // Both wait: written back as pending, their attempts unspent.
        #expect(machine.results.count == 2 && machine.results.allSatisfy { !$0.countsAsAttempt })
        #expect(machine.results.allSatisfy { $0.reason == .invalidProviderToken })
        #expect(machine.results.allSatisfy { $0.held }, "held: still due since they first were")

        #expect(
            Self.claimAndSend([Self.job(3), Self.job(4)], &machine, now: Self.start.addingTimeInterval(0.5)).isEmpty)
        #expect(machine.results.count == 4)
        let probeTime = Self.start.addingTimeInterval(1)
        let probe = Self.claimAndSend([Self.job(5), Self.job(6)], &machine, now: probeTime)
        #expect(probe.map(\.id) == [DeliveryID(5)], "one probe when the pause ends; the rest waits")

        let resumed = machine.answered(Self.answer(probe[0], Self.status(200)), now: probeTime)
        #expect(resumed.logged == ["worker.credential_resumed"])
        #expect(resumed.pausedCredentials == ["default": false])
        #expect(machine.credentialPauses.isEmpty)
        #expect(Self.claimAndSend([Self.job(7)], &machine, now: probeTime).map(\.id) == [DeliveryID(7)])
    }

    @Test func aCancelDropsQueuedWorkWithdrawsWhatWaitsAndAcknowledgesWhatIsOnTheWire() {
        var machine = Self.machine()
        let jobs = (1...6).map { Self.job($0, campaign: 5) }
        let sent = Self.claimAndSend(jobs, &machine)
        #expect(sent.count == 4 && machine.queued == 2)

        let request = CancelRequest(seq: 9, campaign: CampaignID(5))
        let read = machine.cancelsRead([request])
        #expect(machine.queued == 0 && machine.summary.cancelled == 2)
        guard case .withdraw(let groups, let andLater, let why) = read.first, case .then(let step) = read.last else {
            Issue.record("expected a withdrawal, then the acknowledgement: \(read)")
            return
        }
        #expect(groups == [5] && andLater)
        #expect(machine.withdrew(3, why).logged == ["worker.campaign_cancelled"])
        let acknowledge = machine.resume(step, now: Self.start, commits: 0)
        guard case .acknowledgeCancels(let acknowledged, let seq)? = acknowledge.last else {
            Issue.record("expected an acknowledgement: \(acknowledge)")
            return
        }
        #expect(seq == 9 && acknowledged.map(\.inFlight) == [1], "one request of four is on the wire")
        machine.cancelsAcknowledged(upTo: seq)
        #expect(machine.cancelSeen == 9)

        let withdrawn = TransportResult.failure(
            TransportError(
                kind: .withdrawn, curlCode: 0, message: "withdrawn", isConnectionFatal: false, isRetryable: true))
        for job in sent.prefix(3) { _ = machine.answered(Self.answer(job, withdrawn), now: Self.start) }
        #expect(machine.summary.cancelled == 5 && machine.results.isEmpty)
        // The one on the wire is answered "try later": it is not retried, its campaign being cancelled.
        _ = machine.answered(Self.answer(sent[3], Self.status(503, .serviceUnavailable)), now: Self.start)
        #expect(machine.results.map(\.disposition) == [.cancelled])
        #expect(machine.inFlight == 0)
        #expect(Self.claimAndSend([Self.job(7, campaign: 5)], &machine).isEmpty, "nothing more of it is sent")
    }

    @Test func aStorageFaultPausesSendingKeepsTheOutcomesAndWritesThemOnceTheDatabaseAcceptsThem() {
        var machine = Self.machine()
        let sent = Self.claimAndSend([Self.job(1)], &machine)
        _ = machine.answered(Self.answer(sent[0], Self.status(200)), now: Self.start)
        guard case .record(let results)? = machine.flushIfDue(now: Self.start).first else {
            Issue.record("nothing in flight: the outcome is written at once")
            return
        }
        #expect(results.count == 1)
        let locked = StoreError.databaseLocked(path: "queue.db")
        #expect(machine.storageFailed(locked, now: Self.start).logged == ["worker.storage_fault"])
        #expect(machine.results.count == 1, "kept")

        // Nothing is claimed, sent or written while the fault lasts, before its next try.
        #expect(Self.turn(&machine, at: Self.start).isEmpty)
        #expect(machine.lookForWork(now: Self.start, commits: 1).isEmpty)
        _ = machine.claimed([Self.job(2)], limit: 10, commits: 0, changes: 0, now: Self.start)
        #expect(machine.submit(now: Self.start).sent.isEmpty)
        #expect(!machine.isDone(now: Self.start))

        let later = Self.start.addingTimeInterval(1)
        guard case .recover(let held)? = Self.turn(&machine, at: later).first else {
            Issue.record("the next try writes what is held")
            return
        }
        #expect(held.count == 1)
        #expect(machine.recoveryFailed(locked, now: later).isEmpty)
        #expect(machine.fault?.tries == 2)

        let recovery = Self.start.addingTimeInterval(10)
        guard case .recover = Self.turn(&machine, at: recovery).first else {
            Issue.record("tries again after the backoff")
            return
        }
        #expect(machine.recovered(RecordReport(), alive: true, now: recovery).logged == ["worker.storage_recovered"])
        #expect(machine.fault == nil && machine.results.isEmpty && machine.nextClaimAt == recovery)
        #expect(machine.submit(now: recovery).sent.map(\.id) == [DeliveryID(2)])
    }

    @Test func anotherWorkerTookOurLeasesOverSoWhatWeHoldIsDroppedAndWeRegisterAgain() {
        var machine = Self.machine()
        let jobs = (1...6).map { Self.job($0, campaign: 7) }
        #expect(Self.claimAndSend(jobs, &machine).count == 4)

        let lost = machine.heartbeatAnswered(alive: false)
        guard case .withdraw(let groups, let andLater, let why)? = lost.first else {
            Issue.record("expected a withdrawal: \(lost)")
            return
        }
        #expect(groups == [7] && !andLater && machine.queued == 0)
        guard case .register(let old, let dropped)? = machine.withdrew(3, why).first else {
            Issue.record("expected a new registration")
            return
        }
        #expect(old == WorkerID(1) && dropped == 5)
        #expect(machine.reregistered(WorkerID(2), lost: old, dropped: dropped).logged == ["worker.leases_lost"])
        #expect(machine.id == WorkerID(2))

        // Taking a quiet worker's leases over makes a claim due at once.
        var report = RescueReport()
        report.workers = [WorkerID(3)]
        report.deliveries = 4
        let later = Self.start.addingTimeInterval(5)
        #expect(machine.rescued(report, now: later).logged == ["worker.stale_leases_taken_over"])
        #expect(machine.nextClaimAt == later)
    }

    @Test func anExpiredProviderTokenIsSentAgainWithANewOneBeforeItCounts() {
        var machine = Self.machine()
        let sent = Self.claimAndSend([Self.job(1)], &machine)
        let expired = Self.status(403, .expiredProviderToken)
        let again = machine.answered(Self.answer(sent[0], expired), now: Self.start)
        #expect(again.sent.map(\.id) == [DeliveryID(1)] && machine.inFlight == 1 && machine.results.isEmpty)
        _ = machine.answered(Self.answer(sent[0], expired, tokenMinted: true), now: Self.start)
        #expect(machine.summary.tokenRefreshes == 1 && machine.summary.sent == 2 && machine.inFlight == 0)
        #expect(machine.results.map(\.reason) == [.expiredProviderToken])
    }

    @Test func anIdleWorkerClaimsAtOnceOnACommitAndReadsTheChangeCountAtMostOnceATick() {
        var machine = Self.machine()
        #expect(machine.lookForWork(now: Self.start, commits: 0).claimLimits == [10])
        guard
            case .expand(_, limit: 10)? = machine.claimed([], limit: 10, commits: 3, changes: 7, now: Self.start).first
        else {
            Issue.record("an empty claim asks an expansion page for what it is short of")
            return
        }
        guard case .findNextDates? = machine.expanded([], limit: 10, report: ExpansionReport(), now: Self.start).first
        else {
            Issue.record("an empty claim and an empty expansion look up when something next comes due")
            return
        }
        _ = machine.nextDatesFound(due: nil, workers: [], now: Self.start)
        #expect(machine.nextClaimAt == Self.start.addingTimeInterval(1), "at the poll interval")

        let soon = Self.start.addingTimeInterval(0.01)
        let check = machine.lookForWork(now: soon, commits: 3)
        guard case .readChangeCount(.idle)? = check.first, case .then(let step)? = check.last else {
            Issue.record("another process's commits are seen on the change count: \(check)")
            return
        }
        machine.changeCountRead(7, for: .idle, now: soon)
        #expect(machine.resume(step, now: soon, commits: 3).isEmpty, "nothing moved")
        #expect(machine.lookForWork(now: soon.addingTimeInterval(0.01), commits: 3).isEmpty, "read once a tick")
        #expect(machine.nextDeadline(after: soon) == soon.addingTimeInterval(Machine.tick))
        // This process committed: claimed at once.
        #expect(machine.lookForWork(now: soon.addingTimeInterval(0.01), commits: 4).claimLimits == [10])
    }

    /// Due rows are claimed first; an expansion page leased to the worker fills what the claim left short, and while
    /// a page was expanded the worker looks again at once.
    @Test func aClaimThatIsShortIsFilledFromALeasedExpansionPage() {
        var machine = Self.machine()
        #expect(machine.lookForWork(now: Self.start, commits: 0).claimLimits == [10])
        let retry = Self.job(1)
        guard
            case .expand(_, let limit)? = machine.claimed([retry], limit: 10, commits: 0, changes: 0, now: Self.start)
                .first
        else {
            Issue.record("a short claim asks for an expansion page")
            return
        }
        #expect(limit == 9)
        var page = ExpansionReport()
        page.pages = 1
        page.jobs = (2...5).map { Self.job(Int64($0)) }
        #expect(machine.expanded(page.jobs, limit: limit, report: page, now: Self.start).isEmpty)
        #expect(machine.nextClaimAt == Self.start, "a page was expanded: more may be due")
        #expect(machine.queued == 5)
        let full = (6...14).map { Self.job(Int64($0)) }
        var filled = ExpansionReport()
        filled.jobs = full
        #expect(machine.expanded(full, limit: 9, report: filled, now: Self.start).isEmpty)
        #expect(machine.queued == 14)
        // A full claim still asks for a page, leasing none of it (PostgreSQL keeps a page ahead of its workers).
        guard
            case .expand(_, limit: 0)? = machine.claimed(
                (20...29).map { Self.job(Int64($0)) }, limit: 10, commits: 0, changes: 0, now: Self.start
            ).first
        else {
            Issue.record("a full claim asks for a page that leases nothing")
            return
        }
    }

    @Test func untilIdleEndsOnceNothingIsDueWithinTheRetryCap() {
        var machine = Self.machine(untilIdle: true)
        _ = machine.claimed([], limit: 10, commits: 0, changes: 0, now: Self.start)
        _ = machine.nextDatesFound(due: Self.start.addingTimeInterval(30), workers: [], now: Self.start)
        #expect(!machine.isDone(now: Self.start), "a retry comes due within the cap (60 s)")
        _ = machine.nextDatesFound(due: Self.start.addingTimeInterval(3600), workers: [], now: Self.start)
        #expect(machine.isDone(now: Self.start))
        // Another host's worker silent for 20 s (more than two 5 s heartbeats) holds leases: taken over when its
        // 30 s lease runs out, and waited for until then.
        let quiet = Self.other(
            2, pid: 1, host: "elsewhere", boot: "boot-2", heartbeat: Self.start.addingTimeInterval(-20))
        #expect(
            machine.nextDatesFound(due: nil, workers: [.init(record: quiet, process: nil)], now: Self.start).isEmpty)
        #expect(!machine.isDone(now: Self.start), "a quiet worker's leases are to be taken over first")
        #expect(machine.nextRescue == Date(timeIntervalSince1970: Self.start.timeIntervalSince1970 + 10.001))
    }

    @Test func aDeadWorkersLeasesAreTakenOverAtOnceAndALiveOnesAreLeftToIt() {
        var machine = Self.machine(untilIdle: true)
        _ = machine.claimed([], limit: 10, commits: 0, changes: 0, now: Self.start)
        let workers: [Machine.Seen] = [
            // Ourselves: never judged.
            .init(record: Self.other(1, pid: 100, startTime: 500), process: .gone),
            // Its pid is gone, or is another process's (another start time): dead, however fresh its heartbeat.
            .init(record: Self.other(2, pid: 4242), process: .gone),
            .init(record: Self.other(3, pid: 4243), process: .running(startTime: 901)),
            // Alive: the same process heartbeating; and another host's worker that heartbeats (its pid means
            // nothing here).
            .init(record: Self.other(4, pid: 4244, leases: 7), process: .running(startTime: 900)),
            .init(record: Self.other(5, pid: 4242, host: "b", boot: "boot-2", leases: 3), process: .gone),
        ]
        let actions = machine.nextDatesFound(due: nil, workers: workers, now: Self.start)
        guard case .takeOver(let dead)? = actions.first else {
            Issue.record("a dead worker's leases are taken over at once: \(actions)")
            return
        }
        #expect(dead == [WorkerID(2), WorkerID(3)])
        #expect(!machine.isDone(now: Self.start), "not while a dead worker's leases remain")
        var report = RescueReport()
        report.workers = dead
        report.deliveries = 10
        #expect(machine.tookOver(report, now: Self.start).logged == ["worker.dead_leases_taken_over"])
        #expect(machine.nextClaimAt == Self.start && !machine.isDone(now: Self.start))
        // What they held was claimed and sent; only the live workers' leases are left: the run ends, naming them.
        _ = machine.claimed([], limit: 10, commits: 0, changes: 0, now: Self.start)
        #expect(machine.nextDatesFound(due: nil, workers: Array(workers[3...]), now: Self.start).isEmpty)
        #expect(machine.isDone(now: Self.start))
        #expect(machine.summary.heldElsewhere.map(\.id) == [WorkerID(4), WorkerID(5)])
    }

    static func turn(_ machine: inout Machine, at now: Date) -> [Action] {
        machine.turn(
            now: now, stopAsked: false, abandonAsked: false, configuration: configuration, credentials: credentials,
            generation: 0)
    }
}

extension [WorkerStateMachine.Action] {
    var sent: [DeliveryJob] {
        compactMap { if case .send(let job, _, _) = $0 { job } else { nil } }
    }

    var claimLimits: [Int] {
        compactMap { if case .claim(let limit) = $0 { limit } else { nil } }
    }

    var logged: [String] {
        compactMap { if case .log(let line) = $0 { "\(line.message)" } else { nil } }
    }

    /// Credentials whose status changed: paused (true) or sending again (false).
    var pausedCredentials: [String: Bool] {
        Dictionary(
            compactMap { if case .credentialStatus(let name, let pause) = $0 { (name, pause != nil) } else { nil } },
            uniquingKeysWith: { $1 })
    }
}
