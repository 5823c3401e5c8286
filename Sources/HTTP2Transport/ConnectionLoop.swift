import Foundation
import Threads
internal import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine behind an `APNsConnection`: one libcurl multi handle (one multiplexed HTTP/2 connection),
/// driven by its own thread so blocking curl calls never run on Swift's cooperative pool.
///
/// Callers hand in requests under `lock`; the loop thread admits them into the multi handle as the token
/// throttle and the stream limit allow, drives libcurl, and resumes each caller's continuation when its
/// transfer is done. Everything below "loop-thread state" is touched by the loop thread only.
final class ConnectionLoop: @unchecked Sendable {
    struct Submission {
        var request: APNsRequest
        var continuation: UnsafeContinuation<TransportResult, Never>
    }

    let configuration: ConnectionConfiguration
    private let baseURL: [UInt8]

    // Shared state, guarded by `lock`.
    private let lock = NSLock()
    private var submissions: [Submission] = []
    private var accepting = true
    private var loopWaiting = false
    private var wakeSent = false
    private var stopDeadline: UInt64?
    private var reconnectRequested = false
    private var exited = false
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []
    /// `withdraw` calls waiting for the loop: which groups (nil: all), and who to tell how many were taken back.
    private var withdrawals: [(groups: Set<Int64>?, waiter: CheckedContinuation<Int, Never>)] = []
    /// Groups withdrawn once: a request of theirs submitted later is withdrawn at once (a send that was on its
    /// way to this connection while the withdrawal ran must not slip through after it).
    private var refusedGroups: Set<Int64> = []
    private var published = ConnectionStats()
    private var outstanding = 0
    private var consecutiveFailures = 0

    // Loop-thread state.
    private var multi: UnsafeMutableRawPointer?
    private var throttle: Throttle
    private var incoming: [Submission] = []
    /// Requests waiting for admission: expedited ones (single sends) go before the rest.
    private var expedited = SubmissionQueue()
    private var pending = SubmissionQueue()
    private var retries: [Transfer] = []
    private var retryHead = 0
    private var idle: [Transfer] = []
    private var inFlight = 0
    private var stats = ConnectionStats()
    private var finishedSincePublish = 0
    private var failureStreak = 0
    /// A stop was requested (copied from `stopDeadline` each turn): no more transport retries.
    private var stopping = false
    /// Attempts handed to libcurl that it has not started sending yet (CURLOPT_PREREQFUNCTION).
    private var unsent = 0
    private var completions: [(UnsafeContinuation<TransportResult, Never>, TransportResult)] = []
    /// At most this many attempts are handed to libcurl per curl_multi_perform. With the sockets corked, a turn's
    /// requests reach the server together; handing over everything that is ready made all streams travel as one
    /// convoy (the server idle while the loop works, then the other way round: 50 streams ran no faster than the
    /// bare loop on far less CPU). Small batches keep both busy. `max(8, maxInFlight / 8)`: 8 did better than 16, 25
    /// or no limit at 50 streams and than no limit at 100; an eighth of a large window (the worker's 1000) so a
    /// turn can still refill what it emptied. Only while the socket is corked.
    private let admissionBatch: Int
    private var admittedThisTurn = 0
    /// `admit` stopped at `admissionBatch` with requests still waiting for a free slot: turn again, don't sleep.
    private var admissionCut = false
    private var sockets: ConnectionSockets
    /// Tests only: when set before `start`, the monotonic time at which libcurl started sending each
    /// attempt. Written by the loop thread; read it after `stop` returned.
    var sendLog: [UInt64]?
    /// Transfers in the multi handle; each knows its index (swap-remove keeps this O(1)).
    private var active: [Transfer] = []
    private let wakePipe: (read: Int32, write: Int32)
    /// A timerfd for the throttle's next token (-1 where there is none).
    private let timer: Int32

    init(configuration: ConnectionConfiguration) throws(TransportError) {
        try configuration.validate()
        Curl.ensureInitialized()
        self.configuration = configuration
        baseURL = Array(configuration.baseURL.utf8)
        admissionBatch = max(8, configuration.maxInFlight / 8)
        sockets = ConnectionSockets(corks: configuration.ratePerSecond == 0)
        throttle = Throttle(ratePerSecond: configuration.ratePerSecond, now: MonotonicClock.nanoseconds())
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw TransportError(kind: .other, curlCode: 0, message: "pipe() failed: errno \(errno)",
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
            close(fds[0]); close(fds[1])
            if timer >= 0 { close(timer) }
            throw TransportError(kind: .other, curlCode: 0, message: "curl_multi_init failed",
                                 isConnectionFatal: true, isRetryable: true)
        }
    }

    deinit {
        if let multi { curl_multi_cleanup(multi) }  // only if the loop never ran
        close(wakePipe.read)
        close(wakePipe.write)
        if timer >= 0 { close(timer) }
    }

    private static func makeMulti(_ configuration: ConnectionConfiguration) -> UnsafeMutableRawPointer? {
        guard let multi = curl_multi_init() else { return nil }
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 1)
        // High, so the server's SETTINGS_MAX_CONCURRENT_STREAMS is what limits streams.
        _ = apnsd_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1000, configuration.maxInFlight))
        return multi
    }

    // MARK: caller side (any thread)

    /// Queues `request`; the result comes back through `continuation`, resumed on the loop thread.
    func submit(_ request: APNsRequest, continuation: UnsafeContinuation<TransportResult, Never>) {
        lock.lock()
        guard accepting else {
            lock.unlock()
            continuation.resume(returning: .failure(.shutdown("connection '\(configuration.label)' is shut down")))
            return
        }
        if let group = request.group, refusedGroups.contains(group) {
            lock.unlock()
            continuation.resume(returning: .failure(.withdrawn()))
            return
        }
        submissions.append(Submission(request: request, continuation: continuation))
        outstanding += 1
        published.submitted += 1
        let wake = loopWaiting && !wakeSent
        if wake { wakeSent = true }
        lock.unlock()
        if wake { wakeLoop() }
    }

    /// (requests submitted and not finished, whether the last attempts failed at the transport level).
    var load: (outstanding: Int, healthy: Bool) {
        lock.lock()
        defer { lock.unlock() }
        return (outstanding, consecutiveFailures == 0)
    }

    var statsSnapshot: ConnectionStats {
        lock.lock()
        defer { lock.unlock() }
        return published
    }

    /// Closes the HTTP/2 connection once the streams in flight are done; requests wait meanwhile.
    func requestReconnect() {
        lock.lock()
        reconnectRequested = true
        let wake = wakeLocked()
        lock.unlock()
        if wake { wakeLoop() }
    }

    /// Takes back every request of `groups` (nil: every request) that has not started on the wire: those
    /// waiting for the throttle or a stream, and those libcurl holds but has not begun to send. Each fails
    /// with `TransportError.withdrawn` before this returns; requests already written are left to finish.
    /// Returns how many were withdrawn.
    func withdraw(groups: Set<Int64>?, andLater: Bool) async -> Int {
        await withCheckedContinuation { (waiter: CheckedContinuation<Int, Never>) in
            lock.lock()
            if andLater, let groups { refusedGroups.formUnion(groups) }
            if exited {
                lock.unlock()
                waiter.resume(returning: 0)
                return
            }
            withdrawals.append((groups, waiter))
            let wake = wakeLocked()
            lock.unlock()
            if wake { wakeLoop() }
        }
    }

    /// Refuses, from now on, requests of `groups` (as if they had been withdrawn): for a connection created after
    /// a withdrawal.
    func refuse(groups: Set<Int64>) {
        lock.lock()
        refusedGroups.formUnion(groups)
        lock.unlock()
    }

    /// Stops accepting; the loop drains until `deadline` (monotonic ns), fails what is left, cleans up and ends.
    func stop(deadline: UInt64) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            lock.lock()
            if exited {
                lock.unlock()
                waiter.resume()
                return
            }
            exitWaiters.append(waiter)
            requestStopLocked(deadline: deadline)
            let wake = wakeLocked()
            lock.unlock()
            if wake { wakeLoop() }
        }
    }

    /// Like `stop` without waiting (from `deinit`): fails everything now.
    func stopNow() {
        lock.lock()
        if exited { lock.unlock(); return }
        requestStopLocked(deadline: 0)
        let wake = wakeLocked()
        lock.unlock()
        if wake { wakeLoop() }
    }

    private func requestStopLocked(deadline: UInt64) {
        accepting = false
        stopDeadline = min(stopDeadline ?? .max, deadline)
    }

    /// Wakes the loop out of curl_multi_poll: one byte into our own pipe, which the loop polls with libcurl's
    /// sockets. (Not curl_multi_wakeup: the loop may replace its multi handle while callers wake it.)
    private func wakeLoop() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    private func wakeLocked() -> Bool {
        let wake = loopWaiting && !wakeSent
        if wake { wakeSent = true }
        return wake
    }

    // MARK: loop thread

    func start() {
        _ = DedicatedThread(name: "apns-\(configuration.label)") { [self] in run() }
    }

    private func run() {
        var running: Int32 = 0
        while true {
            // 1. Take what callers handed in; publish counters.
            lock.lock()
            swap(&incoming, &submissions)
            let deadline = stopDeadline
            stopping = deadline != nil
            let reconnect = reconnectRequested
            let withdrawing = withdrawals
            withdrawals.removeAll()
            publishLocked()
            lock.unlock()
            if !incoming.isEmpty {
                for submission in incoming {
                    if submission.request.isExpedited { expedited.append(submission) } else { pending.append(submission) }
                }
                incoming.removeAll(keepingCapacity: true)
            }
            if !withdrawing.isEmpty { withdrawUnsent(withdrawing) }

            let now = MonotonicClock.nanoseconds()
            if let deadline {
                if queuedCount == 0 && inFlight == 0 { break }
                if now >= deadline {
                    failEverything(.shutdown("connection '\(configuration.label)' shut down before the response"))
                    break
                }
            }
            if reconnect && inFlight == 0 { recreateMulti() }
            let admitting = !reconnect || inFlight == 0

            // 2. Admit, drive libcurl, collect completions, admit into freed slots (each admission at most
            //    `admissionBatch` per perform), resume callers, push this turn's writes out.
            if admitting { admit(now: now) }
            sockets.cork()
            curl_multi_perform(multi, &running)
            admittedThisTurn = 0
            collectCompletions()
            if admitting && queuedCount > 0 { admit(now: MonotonicClock.nanoseconds()) }
            resumeCompletions()
            sockets.uncork()

            // 3. Sleep in curl_multi_poll until the socket, a curl timer, the throttle or a caller wakes us.
            var timeout = 1000
            var throttleWait: UInt64 = 0
            // (While libcurl still holds admitted requests back, the next step is its own: no throttle wake-up.)
            if admitting && queuedCount > 0 && inFlight < admissionLimit && (throttle.isUnlimited || unsent == 0) {
                throttleWait = throttle.wait(now: MonotonicClock.nanoseconds())
                timeout = min(timeout, Int((throttleWait + 999_999) / 1_000_000))
            }
            // Unthrottled, libcurl holding attempts back for a stream slot while others are on the wire: it does
            // not always wake us when a slot frees (the server's stream-limit test stalled a whole second per
            // wave of streams, more often once turns were batched). Drive it again soon instead. (Throttled
            // connections keep their timerfd schedule: waking every millisecond there cost 9% of the rate.)
            if throttle.isUnlimited && unsent > 0 && unsent < inFlight { timeout = min(timeout, 1) }
            if let deadline {
                let left = deadline > now ? Int((deadline - now + 999_999) / 1_000_000) : 0
                timeout = min(timeout, left)
            }
            lock.lock()
            let sleep = submissions.isEmpty && withdrawals.isEmpty && stopDeadline == deadline && reconnectRequested == reconnect
                && !(admitting && admissionCut)
            if sleep { loopWaiting = true }
            publishLocked()
            lock.unlock()
            if sleep {
                poll(timeoutMilliseconds: timeout, throttleWait: throttleWait)
                lock.lock()
                loopWaiting = false
                wakeSent = false
                lock.unlock()
            }
        }
        cleanUp()
    }

    /// curl_multi_poll on libcurl's sockets plus our wake pipe, and (Linux) a timerfd armed for the next
    /// token: curl_multi_poll's timeout is whole milliseconds, which would make a throttled connection
    /// oversleep by up to 1 ms per token (200/s became 170/s).
    private func poll(timeoutMilliseconds timeout: Int, throttleWait: UInt64) {
        var fds = (curl_waitfd(fd: wakePipe.read, events: Int16(CURL_WAIT_POLLIN), revents: 0),
                   curl_waitfd(fd: timer, events: Int16(CURL_WAIT_POLLIN), revents: 0))
        var count: UInt32 = 1
        var timeout = timeout
        #if os(Linux)
        if throttleWait > 0 && timer >= 0 {
            var spec = itimerspec()
            spec.it_value.tv_sec = Int(throttleWait / 1_000_000_000)
            spec.it_value.tv_nsec = Int(throttleWait % 1_000_000_000)
            if timerfd_settime(timer, 0, &spec, nil) == 0 {
                count = 2
                timeout += 1  // the timerfd wakes us; the timeout is only the fallback
            }
        }
        #endif
        withUnsafeMutableBytes(of: &fds) { raw in
            let waitfds = raw.baseAddress!.assumingMemoryBound(to: curl_waitfd.self)
            _ = curl_multi_poll(multi, waitfds, count, Int32(timeout), nil)
        }
        if fds.0.revents != 0 { drainWakePipe() }
        if count == 2 && fds.1.revents != 0 {
            var expirations: UInt64 = 0
            _ = read(timer, &expirations, 8)
        }
    }

    private func drainWakePipe() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(wakePipe.read, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Attempts the loop may have in libcurl: one until the connection has answered (ConnectionSockets).
    private var admissionLimit: Int { sockets.isProven ? configuration.maxInFlight : 1 }

    private var queuedCount: Int { expedited.count + pending.count + (retries.count - retryHead) }

    private func admit(now: UInt64) {
        admissionCut = false
        // Throttled: while libcurl holds requests back, hand it no more; their tokens are already spent.
        if !throttle.isUnlimited && unsent > 0 { return }
        let batch = sockets.isCorking ? admissionBatch : Int.max
        let limit = admissionLimit
        while inFlight < limit {
            guard admittedThisTurn < batch else {
                admissionCut = queuedCount > 0
                return
            }
            let transfer: Transfer
            if retryHead < retries.count {
                guard throttle.admit(now: now, unsent: unsent) else { return }
                transfer = retries[retryHead]
                retryHead += 1
                if retryHead == retries.count { retries.removeAll(keepingCapacity: true); retryHead = 0 }
                transfer.resetResponse()
            } else if !expedited.isEmpty || !pending.isEmpty {
                guard throttle.admit(now: now, unsent: unsent) else { return }
                let submission = expedited.popFirst() ?? pending.popFirst()!
                guard let fresh = obtainTransfer() else {
                    finish(submission.continuation, .failure(TransportError(
                        kind: .other, curlCode: 0, message: "curl_easy_init failed", isConnectionFatal: false, isRetryable: true)))
                    continue
                }
                if let error = fresh.configure(submission.request, baseURL: baseURL) {
                    recycle(fresh)
                    finish(submission.continuation, .failure(error))
                    continue
                }
                fresh.continuation = submission.continuation
                transfer = fresh
            } else {
                return
            }
            admittedThisTurn += 1
            transfer.attempts += 1
            let code = curl_multi_add_handle(multi, transfer.easy)
            guard code == CURLM_OK else {
                let message = String(cString: curl_multi_strerror(code))
                complete(transfer, .failure(TransportError(kind: .other, curlCode: 0, message: "curl_multi_add_handle: \(message)",
                                                           isConnectionFatal: false, isRetryable: true)))
                continue
            }
            transfer.activeIndex = active.count
            active.append(transfer)
            transfer.onWire = false
            unsent += 1
            inFlight += 1
            stats.sent += 1
        }
    }

    /// Fails with `.withdrawn` the requests of each withdrawal that have not started on the wire, hands their
    /// results back, then tells each withdrawal how many it took.
    private func withdrawUnsent(_ withdrawing: [(groups: Set<Int64>?, waiter: CheckedContinuation<Int, Never>)]) {
        var counts: [Int] = []
        for (groups, _) in withdrawing {
            func matches(_ group: Int64?) -> Bool { groups == nil || group.map { groups!.contains($0) } == true }
            var count = 0
            for submission in expedited.remove(where: { matches($0.request.group) })
                + pending.remove(where: { matches($0.request.group) }) {
                finish(submission.continuation, .failure(.withdrawn()))
                count += 1
            }
            var keptRetries: [Transfer] = []
            for transfer in retries[retryHead...] {
                if matches(transfer.group) {
                    complete(transfer, .failure(withdrawnError(transfer)))
                    count += 1
                } else {
                    keptRetries.append(transfer)
                }
            }
            retries = keptRetries
            retryHead = 0
            // libcurl holds these but has not started them (no PREREQFUNCTION yet): removing them sends nothing.
            for transfer in active.filter({ !$0.onWire && matches($0.group) }) {
                curl_multi_remove_handle(multi, transfer.easy)
                deactivate(transfer)
                complete(transfer, .failure(withdrawnError(transfer)))
                count += 1
            }
            counts.append(count)
        }
        resumeCompletions()
        for (index, withdrawal) in withdrawing.enumerated() { withdrawal.waiter.resume(returning: counts[index]) }
    }

    /// `.withdrawn` for a transfer; an earlier attempt of it may have been written (then APNs may have seen it).
    private func withdrawnError(_ transfer: Transfer) -> TransportError {
        var error = TransportError.withdrawn()
        error.requestWasSent = transfer.everSent
        return error
    }

    private func collectCompletions() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            let transfer = Transfer.from(easy: easy)
            curl_multi_remove_handle(multi, easy)
            deactivate(transfer)
            if code == CURLE_OK {
                sockets.answered(generation: transfer.connectionGeneration)
                failureStreak = 0
                stats.completed += 1
                let body = transfer.responseBody
                transfer.responseBody = []
                complete(transfer, .response(status: transfer.responseCode(), apnsID: transfer.apnsID, body: body))
                continue
            }
            var error = TransportError(curlCode: code, detail: transfer.errorDetail)
            error.requestWasSent = transfer.everSent
            if error.isConnectionFatal {
                stats.connectionErrors += 1
                failureStreak += 1
            }
            stats.lastError = error
            if !sockets.isProven && error.meansNoConnection {
                // The requests waiting for this connection would have met the same fate in libcurl (before one
                // at a time, they all waited in it): they fail now rather than one connect timeout each.
                failQueued(error)
            }
            if error.isRetriedByTransport && transfer.attempts <= configuration.transportRetries && !stopping {
                stats.retried += 1
                retries.append(transfer)
                continue
            }
            stats.failed += 1
            complete(transfer, .failure(error))
        }
    }

    /// From libcurl's CURLOPT_PREREQFUNCTION (loop thread, inside curl_multi_perform).
    func transferStartsSending(_ transfer: Transfer) {
        transfer.connectionGeneration = sockets.generation
        if !throttle.isUnlimited || sendLog != nil {
            // Every start counts, also libcurl's own re-send of an attempt on a fresh connection.
            let now = MonotonicClock.nanoseconds()
            throttle.recordSend(at: now)
            sendLog?.append(now)
        }
        guard !transfer.onWire else { return }
        transfer.onWire = true
        transfer.everSent = true
        unsent -= 1
    }

    /// From libcurl's CURLOPT_SOCKOPTFUNCTION (loop thread): the connection's new socket.
    func socketOpened(_ descriptor: Int32) { sockets.opened(descriptor) }

    /// From libcurl's CURLOPT_CLOSESOCKETFUNCTION (loop thread), just before the socket is closed.
    func socketClosing(_ descriptor: Int32) { sockets.closing(descriptor) }

    private func deactivate(_ transfer: Transfer) {
        if !transfer.onWire {
            transfer.onWire = true
            unsent -= 1
        }
        let index = transfer.activeIndex
        let last = active.removeLast()
        if index < active.count {
            active[index] = last
            last.activeIndex = index
        }
        transfer.activeIndex = -1
        inFlight -= 1
    }

    private func complete(_ transfer: Transfer, _ result: TransportResult) {
        if let continuation = transfer.continuation {
            transfer.continuation = nil
            finish(continuation, result)
        }
        recycle(transfer)
    }

    /// Results are handed back after the libcurl work of this turn, outside any lock.
    private func finish(_ continuation: UnsafeContinuation<TransportResult, Never>, _ result: TransportResult) {
        completions.append((continuation, result))
        finishedSincePublish += 1
    }

    private func resumeCompletions() {
        guard !completions.isEmpty else { return }
        for (continuation, result) in completions { continuation.resume(returning: result) }
        completions.removeAll(keepingCapacity: true)
    }

    private func obtainTransfer() -> Transfer? {
        if let transfer = idle.popLast() { return transfer }
        return Transfer(configuration: configuration, owner: self)
    }

    private func recycle(_ transfer: Transfer) {
        transfer.resetResponse()
        if idle.count < configuration.maxInFlight { idle.append(transfer) }
    }

    private func publishLocked() {
        outstanding -= finishedSincePublish
        finishedSincePublish = 0
        consecutiveFailures = failureStreak
        let submitted = published.submitted
        stats.inFlight = inFlight
        stats.queued = queuedCount
        published = stats
        published.submitted = submitted
    }

    /// A fresh multi handle: the old HTTP/2 connection is closed; the next request opens a new one.
    private func recreateMulti() {
        curl_multi_cleanup(multi)
        multi = Self.makeMulti(configuration)
        precondition(multi != nil, "curl_multi_init failed")
        stats.reconnects += 1
        lock.lock()
        reconnectRequested = false
        lock.unlock()
    }

    private func failEverything(_ error: TransportError) {
        // Streams still in libcurl.
        for transfer in active.reversed() {
            curl_multi_remove_handle(multi, transfer.easy)
            deactivate(transfer)
            stats.failed += 1
            var failure = error
            failure.requestWasSent = transfer.everSent
            complete(transfer, .failure(failure))
        }
        failQueued(error)
        resumeCompletions()
    }

    /// Fails the requests not yet handed to libcurl.
    private func failQueued(_ error: TransportError) {
        var failure = error
        for transfer in retries[retryHead...] {
            stats.failed += 1
            failure.requestWasSent = transfer.everSent
            complete(transfer, .failure(failure))
        }
        retries.removeAll(); retryHead = 0
        failure.requestWasSent = false
        for submission in expedited.drain() { stats.failed += 1; finish(submission.continuation, .failure(failure)) }
        for submission in pending.drain() { stats.failed += 1; finish(submission.continuation, .failure(failure)) }
    }

    private func cleanUp() {
        lock.lock()
        accepting = false
        let late = submissions
        submissions.removeAll()
        lock.unlock()
        for submission in late { stats.failed += 1; finish(submission.continuation, .failure(.shutdown())) }
        failEverything(.shutdown())
        idle.removeAll()  // curl_easy_cleanup in Transfer.deinit
        curl_multi_cleanup(multi)
        multi = nil
        lock.lock()
        exited = true
        publishLocked()
        let waiters = exitWaiters
        exitWaiters.removeAll()
        let withdrawing = withdrawals
        withdrawals.removeAll()
        lock.unlock()
        for withdrawal in withdrawing { withdrawal.waiter.resume(returning: 0) }
        for waiter in waiters { waiter.resume() }
    }
}
