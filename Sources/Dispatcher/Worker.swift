import APNs
import Foundation
import HTTP2Transport
import Logging
import ProviderAuth
import Store

/// Sends what the queue holds: claims due deliveries, signs, sends over the pools, classifies the answers,
/// and writes outcomes back in batches. One worker per database.
public final class Worker: Sendable {
    private let store: any DeliveryStore
    private let tokens: ProviderTokenCache
    private let transport: TransportRegistry
    private let configuration: WorkerConfiguration
    private let logger: Logger
    private let clock: @Sendable () -> Date
    private let random: @Sendable () -> Double

    public init(store: any DeliveryStore, tokens: ProviderTokenCache, transport: TransportRegistry,
                configuration: WorkerConfiguration, logger: Logger,
                clock: @escaping @Sendable () -> Date = Date.init,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.store = store
        self.tokens = tokens
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        self.random = random
    }

    /// Runs until `shouldStop` says so, or — with `untilIdle` — until nothing is due within the retry cap
    /// (pending retries are waited for; campaigns scheduled later are left for a later run).
    public func run(untilIdle: Bool, shouldStop: @escaping @Sendable () -> Bool = { false }) async throws(DispatcherError) -> WorkerSummary {
        let started = ContinuousClock.now
        var state = RunState()
        do {
            let released = try await store.releaseLeases(now: clock())
            if released > 0 { logger.info("worker.leases_released", ("deliveries", String(released))) }
            try await loop(untilIdle: untilIdle, shouldStop: shouldStop, state: &state)
        } catch let error as StoreError {
            throw .store(error.description)
        } catch let error as DispatcherError {
            throw error
        } catch {
            throw .store("\(error)")
        }
        state.summary.seconds = (ContinuousClock.now - started).seconds
        if let stopReason = state.stopReason {
            logger.error("worker.stopped_configuration_error", ("reason", stopReason))
            throw .configuration(stopReason)
        }
        return state.summary
    }

    private struct RunState {
        var summary = WorkerSummary()
        var queue: [DeliveryJob] = []
        var queueHead = 0
        var results: [DeliveryResult] = []
        var stopReason: String?
        var stopping = false
        var lastFlush = ContinuousClock.now

        var queued: Int { queue.count - queueHead }

        mutating func nextJob() -> DeliveryJob? {
            guard queueHead < queue.count else { return nil }
            defer { queueHead += 1 }
            return queue[queueHead]
        }
    }

    private func loop(untilIdle: Bool, shouldStop: @escaping @Sendable () -> Bool, state: inout RunState) async throws {
        try await withThrowingTaskGroup(of: Sent.self) { group in
            var inFlight = 0
            while true {
                if !state.stopping && shouldStop() {
                    state.stopping = true
                    logger.info("worker.stopping", ("in_flight", String(inFlight)))
                }
                if !state.stopping && state.queued < configuration.claimBatch / 2 {
                    try await refill(&state)
                }
                while !state.stopping, inFlight < configuration.maxInFlight, let job = state.nextJob() {
                    let now = clock()
                    if DeliveryDecision.isExpired(job, now: now) {
                        state.results.append(DeliveryDecision.expired(job))
                        continue
                    }
                    group.addTask { await self.send(job) }
                    inFlight += 1
                }
                if inFlight == 0 {
                    try await flush(&state)
                    if state.stopping { break }
                    if state.queued > 0 { continue }
                    guard let next = try await store.nextDueDate() else {
                        if untilIdle { break }
                        try await Task.sleep(for: configuration.pollInterval)
                        continue
                    }
                    let wait = next.timeIntervalSince(clock())
                    if untilIdle && wait > configuration.retry.cap.seconds { break }
                    if wait > 0 { try await Task.sleep(for: .seconds(min(wait, configuration.pollInterval.seconds))) }
                    continue
                }
                guard let sent = try await group.next() else { continue }
                inFlight -= 1
                handle(sent, state: &state)
                if state.results.count >= configuration.recordBatch
                    || ContinuousClock.now - state.lastFlush >= configuration.recordInterval {
                    try await flush(&state)
                }
            }
        }
        // Jobs claimed but never sent (stopping) keep their lease until released here.
        if state.queued > 0 || state.stopReason != nil { _ = try await store.releaseLeases(now: clock()) }
    }

    private func refill(_ state: inout RunState) async throws {
        let now = clock()
        // One page per refill keeps expansion in step with sending: a huge campaign never stalls the first sends.
        _ = try await store.expandDueCampaigns(now: now, pageSize: configuration.expansionPageSize, maxPages: 1)
        let jobs = try await store.claim(now: now, limit: configuration.claimBatch, leaseFor: configuration.lease)
        guard !jobs.isEmpty else { return }
        if state.queueHead > 0 {
            state.queue.removeFirst(state.queueHead)
            state.queueHead = 0
        }
        state.queue.append(contentsOf: jobs)
    }

    private func flush(_ state: inout RunState) async throws {
        state.lastFlush = ContinuousClock.now
        guard !state.results.isEmpty else { return }
        _ = try await store.record(state.results, now: clock())
        state.results.removeAll(keepingCapacity: true)
    }

    private func handle(_ sent: Sent, state: inout RunState) {
        state.summary.sent += sent.requests
        state.summary.tokenRefreshes += sent.tokenRefreshes
        if let failure = sent.tokenFailure {
            state.stopping = true
            state.stopReason = state.stopReason ?? failure
            return
        }
        let decision = DeliveryDecision.decide(job: sent.job, answer: sent.answer, now: clock(), policy: configuration.retry, unit: random())
        if let stopReason = decision.stopReason {
            state.stopping = true
            state.stopReason = state.stopReason ?? stopReason
        }
        if let result = decision.result {
            state.summary.count(result)
            state.results.append(result)
        }
    }

    private struct Sent: Sendable {
        var job: DeliveryJob
        var answer: TransportResult
        var requests: Int
        var tokenRefreshes: Int
        var tokenFailure: String?
    }

    /// Sends one job; on ExpiredProviderToken, mints a new token once and sends again at once.
    private func send(_ job: DeliveryJob) async -> Sent {
        let key = PoolKey(credentialID: configuration.credentialID, environment: job.environment)
        var token: ProviderToken
        do {
            token = try await tokens.token()
        } catch {
            return Sent(job: job, answer: .failure(.shutdown()), requests: 0, tokenRefreshes: 0, tokenFailure: error.description)
        }
        var answer = await transport.send(APNsRequest(job: job, authorization: token.authorizationHeader), on: key)
        var refreshes = 0
        if answer.status == 403, answer.errorResponse?.reason == .expiredProviderToken {
            do {
                token = try await tokens.tokenAfterExpired(token)
            } catch {
                return Sent(job: job, answer: answer, requests: 1, tokenRefreshes: 0, tokenFailure: error.description)
            }
            refreshes = 1
            answer = await transport.send(APNsRequest(job: job, authorization: token.authorizationHeader), on: key)
        }
        return Sent(job: job, answer: answer, requests: 1 + refreshes, tokenRefreshes: refreshes, tokenFailure: nil)
    }
}
