import APNs
import Foundation
import HTTP2Transport
import Logging
import ProviderAuth
import QueueModel
import Threads

/// Sends what the queue holds: claims due deliveries, signs, sends over the pools, classifies the answers,
/// and writes outcomes back in batches. Several workers may share one database: each registers, heartbeats,
/// owns what it claims, and takes over only the leases of workers whose heartbeat stopped or whose process it sees
/// gone.
///
/// Every decision is `WorkerStateMachine`'s; the worker carries out its actions (the store, the transport, the
/// log) and feeds the results back.
///
/// A worker owns its `TransportRegistry` (it withdraws its own unsent requests from it when a campaign is
/// cancelled or the worker stops).
public final class Worker: Sendable {
    let store: any DeliveryStore
    /// The pools it sends on.
    public let transport: TransportRegistry
    /// The settings, the logger and the credentials: read at each use, so that `reload` (SIGHUP) changes them while
    /// the loop runs. `generation` counts credential reloads (a reload ends every credential's pause).
    let reloadable:
        Locked<(configuration: WorkerConfiguration, logger: Logger, credentials: CredentialSet, generation: Int)>
    var configuration: WorkerConfiguration { reloadable.withLock { $0.configuration } }
    /// Its logger: every line carries `worker.id` once it registered (shared with the loggers it was made from).
    public var logger: Logger { reloadable.withLock { $0.logger } }
    /// The credentials it sends with now.
    public var credentials: CredentialSet { reloadable.withLock { $0.credentials } }
    /// Each credential's state, for its stored view and metrics.
    let credentialStates: Locked<[String: CredentialStatus]>
    let clock: @Sendable () -> Date
    let random: @Sendable () -> Double
    let observer: (any WorkerObserver)?
    /// Each environment in an outage and since when, published at every turn of the loop (`unreachableSince`).
    let outagesSeen = Locked<[Environment: Date]>([:])
    /// The longest the loop sleeps with nothing due: how soon it sees `shouldStop`. Work committed in this process
    /// wakes it at once; another process's is seen on the change count, read at most once per
    /// `WorkerStateMachine.tick`. The sleeps are real time; every decision reads the injected `clock`.
    static let longestSleep: Duration = .milliseconds(50)
    /// The answers of the requests in flight, for the loop.
    let inbox = AnswerInbox()

    public init(
        store: any DeliveryStore, credentials: CredentialSet, transport: TransportRegistry,
        configuration: WorkerConfiguration, logger: Logger,
        clock: @escaping @Sendable () -> Date = Date.init,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observer: (any WorkerObserver)? = nil
    ) {
        self.store = store
        self.transport = transport
        self.reloadable = Locked((configuration, logger, credentials, 0))
        self.credentialStates = Locked(Self.statuses(of: credentials))
        self.clock = clock
        self.random = random
        self.observer = observer
    }

    /// Every credential's state (sending, or paused and why), by name.
    public var credentialStatuses: [CredentialStatus] {
        credentialStates.withLock { $0.values.sorted { $0.name < $1.name } }
    }

    static func statuses(of credentials: CredentialSet) -> [String: CredentialStatus] {
        Dictionary(
            uniqueKeysWithValues: credentials.byName.values.map { credential in
                (
                    credential.name,
                    CredentialStatus(name: credential.name, certificateExpires: credential.certificateExpires)
                )
            })
    }

    /// Runs until `shouldStop` says so, or — with `untilIdle` — until nothing is due within the retry cap
    /// (pending retries are waited for; campaigns scheduled later are left for a later run).
    ///
    /// Stopping withdraws what waits unsent on the connections, lets the requests on the wire finish, records
    /// their outcomes and releases everything else. While the database refuses writes the worker does not
    /// exit holding outcomes of requests that went out, unless `shouldAbandon` says so (a second signal).
    /// `registered` runs once the worker has its id (its log lines carry it from then on), before its first claim.
    public func run(
        untilIdle: Bool, shouldStop: @escaping @Sendable () -> Bool = { false },
        shouldAbandon: @escaping @Sendable () -> Bool = { false }, registered: @Sendable () -> Void = {}
    ) async throws(DispatcherError) -> WorkerSummary {
        let started = clock()
        let settings = reloadable.withLock { $0 }
        var machine = WorkerStateMachine(
            configuration: settings.configuration, credentials: settings.credentials, generation: settings.generation,
            untilIdle: untilIdle, process: .current, random: random)
        do {
            try await register(&machine, then: registered)
            try await loop(&machine, shouldStop: shouldStop, shouldAbandon: shouldAbandon)
            try await finish(&machine)
        } catch let error as StoreError {
            throw .store(error)
        } catch let error as DispatcherError {
            throw error
        } catch {
            throw .unexpected("\(error)")
        }
        machine.summary.seconds = clock().timeIntervalSince(started)
        if let stop = machine.stop {
            logger.error("worker.stopped_configuration_error", ("reason", .string(stop.description)))
            throw .stopped(stop)
        }
        if untilIdle, let (name, pause) = machine.credentialPauses.min(by: { $0.key < $1.key }) {
            throw .stopped(.credentialsRefused(status: pause.status ?? 0, reason: pause.reason, credential: name))
        }
        if untilIdle && !machine.unrouted.isEmpty { throw .stopped(.noCredential(topics: machine.unrouted.sorted())) }
        if let fault = machine.fault { throw .outcomesUnwritten(count: machine.results.count, fault.error) }
        if let gaveUp = machine.gaveUp { throw gaveUp }
        return machine.summary
    }

    private func register(_ machine: inout WorkerStateMachine, then registered: @Sendable () -> Void) async throws {
        let now = clock()
        let id = try await store.registerWorker(machine.process, now: now)
        logger.setShared("worker.id", .string(id.description))
        registered()
        let rescued = try await store.rescueStaleWorkers(now: now, staleAfter: configuration.lease, except: id)
        let open = try await store.openCancelRequests()
        let seen = try await store.cancelRequests(after: 0).last?.seq ?? 0
        for case .log(let line) in machine.registered(id, rescued: rescued, cancelled: open, cancelSeen: seen, now: now)
        {
            logger.log(line.level, line.message, line.fields)
        }
    }

    /// Writes what is left and releases every lease still held (claimed and unsent, withdrawn, or dropped).
    private func finish(_ machine: inout WorkerStateMachine) async throws {
        // The last connection events of the run (a failed attempt, a close) are reported, not lost between samples.
        for action in machine.connectionsSampled(transport.stats) {
            switch action {
            case .log(let line): logger.log(line.level, line.message, line.fields)
            case .connectFailed(let environment, let reason, let count):
                observer?.connectFailed(environment, reason: reason, count: count)
            default: break
            }
        }
        guard machine.fault == nil else { return }  // abandoned: a later worker takes the leases over
        if !machine.results.isEmpty {
            _ = try await store.record(machine.results, by: machine.id, now: clock())
            reportRecorded(machine.results)
            machine.results.removeAll()
        }
        let released = try await store.unregisterWorker(machine.id, now: clock())
        if released > 0 { logger.info("worker.leases_released", ("deliveries", .int(released))) }
    }

    /// One turn per batch of answers or wake-up: what is due by the clock, then claims, sends, and writes.
    private func loop(
        _ machine: inout WorkerStateMachine, shouldStop: @escaping @Sendable () -> Bool,
        shouldAbandon: @escaping @Sendable () -> Bool
    ) async throws {
        // The group holds the loop's wake-up only: requests in flight are the transport's, answered into `inbox`.
        try await withThrowingDiscardingTaskGroup { group in
            var waking = false
            var arrived = AnswerInbox.Batch()
            while true {
                let now = clock()
                let outages = machine.unreachableSince
                outagesSeen.withLock { $0 = outages }
                let settings = reloadable.withLock { $0 }
                try await perform(
                    machine.turn(
                        now: now, stopAsked: shouldStop(), abandonAsked: shouldAbandon(),
                        configuration: settings.configuration, credentials: settings.credentials,
                        generation: settings.generation), &machine)
                if machine.abandoned { break }
                try await perform(machine.lookForWork(now: now, commits: store.commits.current), &machine)
                try await perform(machine.submit(now: clock()), &machine)
                try await perform(machine.flushIfDue(now: now), &machine)
                if machine.isDone(now: now) { break }
                if !waking {
                    waking = true
                    let deadline = machine.nextDeadline(after: now)?.timeIntervalSince(now)
                    let wait = deadline.map { min(Self.longestSleep, .seconds($0)) } ?? Self.longestSleep
                    let (commits, seen, inbox) = (store.commits, store.commits.current, inbox)
                    group.addTask {
                        await Self.wake(after: wait, orOn: commits, whileAt: seen)
                        inbox.wake()
                    }
                }
                await inbox.take(into: &arrived)
                if arrived.woke { waking = false }
                let answered = clock()
                for reply in arrived.replies {
                    report(reply)
                    try await perform(machine.answered(reply.answer, now: answered), &machine)
                }
                arrived.replies.removeAll(keepingCapacity: true)
                arrived.woke = false
            }
            group.cancelAll()
        }
    }

    /// Returns after `duration`, or sooner when `signal` moves from `seen`.
    private static func wake(after duration: Duration, orOn signal: WorkSignal, whileAt seen: UInt64) async {
        await withTaskGroup(of: Void.self) { race in
            race.addTask { try? await Task.sleep(for: duration) }
            race.addTask { await signal.wait(whileAt: seen) }
            await race.next()
            race.cancelAll()
        }
    }

    /// This machine's name, for `apnsd workers`.
    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()
}
