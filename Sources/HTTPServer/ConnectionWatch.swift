import Foundation
import Threads

/// Every open connection of the server with the phase of its current request, and a watchdog thread that enforces
/// the deadlines libmicrohttpd's idle timeout cannot: a whole request head within `headerTimeout` and a whole body
/// within `bodyTimeout`, however slowly the bytes trickle. It also notices a client that went away while its
/// handler runs (the suspended connection is read by no one): it shuts the connection down, so that it closes as
/// soon as the handler answers, and cancels the handler of a read (a long poll ends at once).
///
/// A connection past its deadline is `shutdown(2)`, never closed: libmicrohttpd owns the socket, sees the end of
/// it and closes the connection itself. The lock is held across the shutdown and across the removal in `closed`,
/// which libmicrohttpd calls before it closes the socket, so a number reused by another connection is never hit.
final class ConnectionWatch: @unchecked Sendable {
    /// Where a connection's current request is.
    enum Phase: Equatable {
        /// Waiting for a request's head: since the connection opened, or since its previous request ended.
        case head
        /// Reading the body.
        case body
        /// The handler runs on the suspended connection: no one reads it, so the watch looks for the client's close.
        case handling
        /// Neither read nor timed here (the head check runs, or the response is being written).
        case held
    }

    /// What the watchdog does with a connection.
    enum Verdict: Equatable {
        case fine
        /// Past its deadline: shut down.
        case overdue
        /// Its handler runs: shut down (and cancel a read's handler) if the client has closed.
        case watchClient
    }

    struct Limits: Sendable {
        var headerTimeout: UInt64
        var bodyTimeout: UInt64

        /// From seconds.
        init(headerTimeout: Double, bodyTimeout: Double) {
            self.headerTimeout = Self.nanoseconds(headerTimeout)
            self.bodyTimeout = Self.nanoseconds(bodyTimeout)
        }

        private static func nanoseconds(_ seconds: Double) -> UInt64 {
            UInt64(max(0.001, min(seconds, 86_400)) * 1e9)
        }
    }

    private struct Entry {
        var socket: Int32
        var phase: Phase
        /// When the phase began (MonotonicClock nanoseconds).
        var since: UInt64
        /// Cancels the handler (set while a read is handled).
        var cancel: (@Sendable () -> Void)?
        /// Shut down already: libmicrohttpd will close it.
        var shut = false
    }

    let limits: Limits
    private let entries = Locked<[UInt: Entry]>([:])
    private let wake = NSCondition()
    /// Both guarded by `wake`.
    private var stopping = false
    private var thread: DedicatedThread?

    init(limits: Limits) { self.limits = limits }

    /// The decision for one connection at `now`: a pure function of the phase, its start and the limits.
    static func verdict(_ phase: Phase, since: UInt64, now: UInt64, limits: Limits) -> Verdict {
        let elapsed = now >= since ? now - since : 0
        switch phase {
        case .head: return elapsed > limits.headerTimeout ? .overdue : .fine
        case .body: return elapsed > limits.bodyTimeout ? .overdue : .fine
        case .handling: return .watchClient
        case .held: return .fine
        }
    }

    /// How often the watchdog looks: a tenth of the shorter deadline, between 20 ms and 250 ms.
    var interval: TimeInterval {
        let shorter = Double(min(limits.headerTimeout, limits.bodyTimeout)) / 1e9
        return max(0.02, min(0.25, shorter / 10))
    }

    /// Starts the watchdog thread.
    func start() {
        let started = DedicatedThread(name: "apnsd-http-watch") { [self] in
            while waitForTick() { sweep(now: MonotonicClock.nanoseconds()) }
        }
        wake.lock()
        thread = started
        wake.unlock()
    }

    /// Ends the watchdog thread and waits for it.
    func stop() {
        wake.lock()
        stopping = true
        wake.signal()
        let running = thread
        wake.unlock()
        running?.join()
    }

    /// Sleeps one interval; false once stopping.
    private func waitForTick() -> Bool {
        wake.lock()
        defer { wake.unlock() }
        if !stopping { _ = wake.wait(until: Date(timeIntervalSinceNow: interval)) }
        return !stopping
    }

    /// Connections open now.
    var count: Int { entries.withLock { $0.count } }

    /// A connection was accepted: its first request's head is awaited from now.
    func opened(_ connection: UInt, socket: Int32, now: UInt64) {
        entries.withLock { $0[connection] = Entry(socket: socket, phase: .head, since: now) }
    }

    /// libmicrohttpd is about to close the connection's socket.
    func closed(_ connection: UInt) {
        _ = entries.withLock { $0.removeValue(forKey: connection) }
    }

    /// The connection's request moved to `phase` at `now`; `cancel` stops its handler (with `.handling`).
    func enter(_ connection: UInt, _ phase: Phase, now: UInt64, cancel: (@Sendable () -> Void)? = nil) {
        entries.withLock { entries in
            guard entries[connection] != nil else { return }
            entries[connection]!.phase = phase
            entries[connection]!.since = now
            entries[connection]!.cancel = cancel
        }
    }

    /// One look at every connection: shuts down those past their deadline and those whose client left while their
    /// handler ran (cancelling the handler).
    func sweep(now: UInt64) {
        let cancels = entries.withLock { entries -> [@Sendable () -> Void] in
            var handling: [UInt] = []
            for (connection, entry) in entries where !entry.shut {
                switch Self.verdict(entry.phase, since: entry.since, now: now, limits: limits) {
                case .fine: break
                case .overdue:
                    shutdown(entry.socket, Int32(SHUT_RDWR))
                    entries[connection]?.shut = true
                case .watchClient: handling.append(connection)
                }
            }
            guard !handling.isEmpty else { return [] }
            var polled = handling.map { pollfd(fd: entries[$0]!.socket, events: Self.clientGone, revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 0) > 0 else { return [] }
            var cancels: [@Sendable () -> Void] = []
            for (connection, result) in zip(handling, polled) where result.revents & Self.clientGoneOrFailed != 0 {
                shutdown(result.fd, Int32(SHUT_RDWR))
                entries[connection]?.shut = true
                if let cancel = entries[connection]?.cancel { cancels.append(cancel) }
            }
            return cancels
        }
        for cancel in cancels { cancel() }
    }

    /// The peer closed its side (POLLRDHUP, Linux); POLLHUP and POLLERR are reported whatever is asked.
    private static let clientGone = Int16(0x2000)
    private static let clientGoneOrFailed = clientGone | Int16(POLLHUP) | Int16(POLLERR)
}
