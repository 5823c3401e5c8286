/// Whether one connection of a pool takes requests, and when one that could not connect tries again.
///
/// A slot is ready until a connection attempt fails (DNS, connect, TLS, connect timeout). It then pauses, on
/// the worker's outage schedule (decorrelated jitter: each pause random between `base` and three times the
/// last, at most `cap`), and once the pause is over takes one request, its probe: an answer makes it ready
/// again, another failure pauses it longer. A slot is never left out for good, so a pool that lost
/// connections regains all of them.
///
/// A failure while no other slot of the pool was ready is an outage of APNs, not of this slot: the first answer
/// on any other slot ends its pause, so every connection comes back with APNs. A failure while another slot
/// worked is the slot's own, and its pause runs out. Times are monotonic nanoseconds; no I/O here.
struct SlotHealth: Hashable, Sendable {
    enum Phase: Hashable, Sendable {
        case ready
        /// No request until this time; then one probe.
        case paused(until: UInt64)
        /// The probe is on its way.
        case probing
    }

    let base: UInt64
    let cap: UInt64
    private(set) var phase = Phase.ready
    /// Connection attempts failed in a row.
    private(set) var failures = 0
    /// The last failure happened while no other slot was ready (an outage of APNs).
    private(set) var failedInOutage = false
    private var lastPause: UInt64 = 0

    init(base: Duration, cap: Duration) {
        self.base = max(1, Self.nanoseconds(base))
        self.cap = max(self.base, Self.nanoseconds(cap))
    }

    var isReady: Bool { phase == .ready }

    /// Whether a pause is over and the next request would be its probe.
    func awaitsProbe(now: UInt64) -> Bool {
        if case .paused(let until) = phase { return now >= until }
        return false
    }

    /// A request was routed here: a slot whose pause is over starts probing.
    mutating func took(now: UInt64) {
        if awaitsProbe(now: now) { phase = .probing }
    }

    /// A connection attempt failed at `now`; `unit` is a random number in [0, 1); `othersReady`: another slot of
    /// the pool was ready. Requests that waited for the same attempt fail with it: within a pause they change
    /// nothing.
    mutating func connectFailed(now: UInt64, unit: Double, othersReady: Bool) {
        if case .paused(let until) = phase, now < until { return }
        let high = min(cap, max(base, lastPause.multipliedReportingOverflow(by: 3).partialValue))
        lastPause = base + UInt64(Double(high - base) * min(max(unit, 0), 1))
        failures += 1
        failedInOutage = !othersReady
        phase = .paused(until: now + lastPause)
    }

    /// A request on this slot got an answer from APNs (or was written to it): the slot is ready.
    mutating func reached() {
        phase = .ready
        failures = 0
        failedInOutage = false
        lastPause = 0
    }

    /// The probe ended without news (withdrawn, shut down): the next request probes again.
    mutating func probeAbandoned(now: UInt64) {
        if phase == .probing { phase = .paused(until: now) }
    }

    /// Another slot of the pool got an answer: APNs is back, so a pause that an outage began ends now.
    mutating func peerReached(now: UInt64) {
        guard failedInOutage, case .paused(let until) = phase, until > now else { return }
        phase = .paused(until: now)
    }

    /// What the slot is doing, given whether its connection's socket is open.
    func state(socketOpen: Bool) -> ConnectionState {
        switch phase {
        case .paused: .backoff
        case .probing: .connecting
        case .ready: socketOpen ? .open : .connecting
        }
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
