internal import CCurl
import Foundation
import Threads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The engine behind an `APNsConnection`: one libcurl multi handle (one multiplexed HTTP/2 connection),
/// driven by its own thread so blocking curl calls never run on Swift's cooperative pool.
///
/// Callers hand in requests through the `mailbox`; the loop thread does the I/O — libcurl, poll, wake-ups,
/// resuming callers — and leaves the decisions to value types: `AdmissionState` (what goes to libcurl
/// when), `ResendPolicy` (what a cut stream does next) and `ShutdownState` (when a stop ends). Everything
/// below "loop-thread state" is touched by the loop thread only.
final class ConnectionLoop: @unchecked Sendable {
    struct Submission {
        var request: APNsRequest
        var completion: TransportCompletion
    }

    /// What waits for admission: a new request, or an attempt to send again on its configured transfer.
    enum Waiting {
        case fresh(Submission)
        case resend(Transfer)

        var group: Int64? {
            switch self {
            case .fresh(let submission): submission.request.group
            case .resend(let transfer): transfer.group
            }
        }
    }

    let configuration: ConnectionConfiguration
    let baseURL: [UInt8]
    let mailbox = Locked(ConnectionMailbox())

    // Loop-thread state.
    var multi: UnsafeMutableRawPointer?
    var admission: AdmissionState<Waiting>
    let resendPolicy: ResendPolicy
    private var incoming: [Submission] = []
    /// Transfers in the multi handle; each knows its index (swap-remove keeps this O(1)).
    var active: [Transfer] = []
    var idle: [Transfer] = []
    var stats = ConnectionStats()
    var finishedSincePublish = 0
    /// A stop was requested: no more transport re-sends.
    var stopping = false
    var completions: [(TransportCompletion, TransportAnswer)] = []
    /// Tests only: when set before `start`, the monotonic time at which libcurl started sending each
    /// attempt. Written by the loop thread; read it after `stop` returned.
    var sendLog: [UInt64]?
    let wakePipe: (read: Int32, write: Int32)
    /// A timerfd for the throttle's next token (-1 where there is none).
    let timer: Int32

    init(configuration: ConnectionConfiguration) throws(TransportError) {
        try configuration.validate()
        Curl.ensureInitialized()
        self.configuration = configuration
        baseURL = Array(configuration.baseURL.utf8)
        #if os(Linux)
            let corks = true  // TCP_CORK
        #else
            let corks = false
        #endif
        let throttle = Throttle(ratePerSecond: configuration.ratePerSecond, now: MonotonicClock.nanoseconds())
        admission = AdmissionState(maxInFlight: configuration.maxInFlight, throttle: throttle, corks: corks)
        resendPolicy = ResendPolicy(transportRetries: configuration.transportRetries)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw TransportError(
                kind: .other, curlCode: 0, message: "pipe() failed: errno \(errno)",
                isConnectionFatal: true, isRetryable: true)
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakePipe = (fds[0], fds[1])
        #if os(Linux)
            timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        #else
            timer = -1
        #endif
        multi = Self.makeMulti(configuration)
        guard multi != nil else {
            close(fds[0])
            close(fds[1])
            if timer >= 0 { close(timer) }
            throw TransportError(
                kind: .other, curlCode: 0, message: "curl_multi_init failed",
                isConnectionFatal: true, isRetryable: true)
        }
    }

    deinit {
        if let multi { curl_multi_cleanup(multi) }  // only if the loop never ran
        close(wakePipe.read)
        close(wakePipe.write)
        if timer >= 0 { close(timer) }
    }

    static func makeMulti(_ configuration: ConnectionConfiguration) -> UnsafeMutableRawPointer? {
        guard let multi = curl_multi_init() else { return nil }
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 1)
        // High, so the server's SETTINGS_MAX_CONCURRENT_STREAMS is what limits streams.
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1000, configuration.maxInFlight))
        return multi
    }

    // MARK: caller side (any thread)

    /// Queues `request`; `completion` gets the answer, on the loop thread (on the caller's when refused at once).
    func submit(_ request: APNsRequest, completion: @escaping TransportCompletion) {
        switch mailbox.withLock({ $0.submit(Submission(request: request, completion: completion)) }) {
        case .queued(let wake):
            if wake { wakeLoop() }
        case .refusedShutDown:
            completion(TransportAnswer(.failure(.shutdown("connection '\(configuration.label)' is shut down"))))
        case .refusedWithdrawn:
            completion(TransportAnswer(.failure(.withdrawn())))
        }
    }

    /// Requests submitted and not finished.
    var outstanding: Int { mailbox.withLock { $0.outstanding } }

    var statsSnapshot: ConnectionStats { mailbox.withLock { $0.published } }

    /// Closes the HTTP/2 connection once the streams in flight are done; requests wait meanwhile.
    func requestReconnect() {
        if mailbox.withLock({ $0.requestReconnect() }) { wakeLoop() }
    }

    /// Takes back every request of `groups` (nil: every request) that has not started on the wire: those
    /// waiting for the throttle or a stream, and those libcurl holds but has not begun to send. Each fails
    /// with `TransportError.withdrawn` before this returns; requests already written are left to finish.
    /// Returns how many were withdrawn.
    func withdraw(groups: Set<Int64>?, andLater: Bool) async -> Int {
        await withCheckedContinuation { (waiter: CheckedContinuation<Int, Never>) in
            switch mailbox.withLock({ $0.withdraw(groups: groups, andLater: andLater, waiter: waiter) }) {
            case .toLoop(let wake): if wake { wakeLoop() }
            case .loopEnded: waiter.resume(returning: 0)
            }
        }
    }

    /// Refuses, from now on, requests of `groups` (as if they had been withdrawn): for a connection created after
    /// a withdrawal.
    func refuse(groups: Set<Int64>) {
        mailbox.withLock { $0.refuse(groups: groups) }
    }

    /// Stops accepting; the loop drains until `deadline` (monotonic ns), fails what is left, cleans up and ends.
    func stop(deadline: UInt64) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            switch mailbox.withLock({ $0.stop(by: deadline, waiter: waiter) }) {
            case .toLoop(let wake): if wake { wakeLoop() }
            case .loopEnded: waiter.resume()
            }
        }
    }

    /// Like `stop` without waiting (from `deinit`): fails everything now.
    func stopNow() {
        if mailbox.withLock({ $0.stop(by: 0, waiter: nil) }) == .toLoop(wake: true) { wakeLoop() }
    }

    // MARK: loop thread

    func start() {
        _ = DedicatedThread(name: "apns-\(configuration.label)") { [self] in run() }
    }

    private func run() {
        var running: Int32 = 0
        while true {
            // 1. Take what callers handed in; publish counters; end if the stop says so.
            let turn = mailbox.withLock { mailbox in
                publish(into: &mailbox)
                return mailbox.takeTurn(into: &incoming)
            }
            for submission in incoming {
                admission.enqueue(.fresh(submission), expedited: submission.request.isExpedited)
            }
            incoming.removeAll(keepingCapacity: true)
            if !turn.withdrawals.isEmpty { withdrawUnsent(turn.withdrawals) }
            stopping = turn.shutdown.isStopping
            let now = MonotonicClock.nanoseconds()
            let stopLimit: Int?
            switch turn.shutdown.turn(now: now, waiting: admission.queued, inFlight: admission.inFlight) {
            case .run(let limit): stopLimit = limit
            case .finish: return cleanUp()
            case .failTheRestAndFinish:
                failEverything(.shutdown("connection '\(configuration.label)' shut down before the response"))
                return cleanUp()
            }
            // A reconnect waits for the streams in flight; nothing new goes to the old connection meanwhile.
            if turn.reconnect && admission.inFlight == 0 { recreateMulti() }
            let admitting = !turn.reconnect || admission.inFlight == 0

            // 2. Admit, drive libcurl, collect completions, admit into freed slots, resume callers, and push
            //    this turn's writes out.
            if admitting { admit(now: now) }
            setCork(true)
            curl_multi_perform(multi, &running)
            admission.libcurlRan()
            collectCompletions()
            if admitting && admission.queued > 0 { admit(now: MonotonicClock.nanoseconds()) }
            resumeCompletions()
            setCork(false)

            // 3. Sleep in poll until the socket, a curl timer, the throttle, the deadline or a caller wakes us.
            var sleep = admission.sleep(now: MonotonicClock.nanoseconds(), admitting: admitting)
            if let stopLimit { sleep.milliseconds = min(sleep.milliseconds, stopLimit) }
            let quiet = mailbox.withLock { mailbox in
                publish(into: &mailbox)
                return mailbox.sleepIfQuiet(since: turn, busy: admitting && admission.cut)
            }
            if quiet {
                poll(sleep)
                mailbox.withLock { $0.woke() }
            }
        }
    }

    /// Publishes the loop's counters to callers (under the mailbox's lock).
    func publish(into mailbox: inout ConnectionMailbox) {
        stats.inFlight = admission.inFlight
        stats.queued = admission.queued
        stats.isOpen = admission.proof.socket >= 0 && admission.proof.isProven
        mailbox.publish(stats, finished: finishedSincePublish)
        finishedSincePublish = 0
    }

    /// A fresh multi handle: the old HTTP/2 connection is closed; the next request opens a new one.
    private func recreateMulti() {
        curl_multi_cleanup(multi)
        multi = Self.makeMulti(configuration)
        precondition(multi != nil, "curl_multi_init failed")
        stats.reconnects += 1
        mailbox.withLock { $0.reconnected() }
    }

    private func cleanUp() {
        let late = mailbox.withLock { $0.close() }
        for submission in late {
            stats.failed += 1
            finish(submission.completion, .failure(.shutdown()))
        }
        failEverything(.shutdown())
        idle.removeAll()  // curl_easy_cleanup in Transfer.deinit
        curl_multi_cleanup(multi)
        multi = nil
        let waiting = mailbox.withLock { mailbox in
            publish(into: &mailbox)
            return mailbox.exit()
        }
        for withdrawal in waiting.withdrawals { withdrawal.waiter.resume(returning: 0) }
        for waiter in waiting.stops { waiter.resume() }
    }
}
