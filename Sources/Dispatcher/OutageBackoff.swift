import Foundation
import Threads

/// Whether a pool (one APNs environment) may be sent to, while APNs cannot be reached.
///
/// A request that never left (connect, DNS, TLS handshake) pauses the whole pool instead of spending the
/// delivery's attempts: nothing is sent until the pause ends, then one probe goes; if it reaches APNs the
/// pool resumes, if not the next pause is longer. Pauses follow decorrelated jitter (each one random between
/// `base` and three times the last, at most `cap`), so many workers do not reconnect in step.
/// A value type driven by the worker with an injected clock and random numbers.
public struct OutageBackoff: Hashable, Sendable {
    public let base: Duration
    public let cap: Duration
    /// When APNs was first found unreachable in this outage; nil while it is reachable.
    public private(set) var since: Date?
    /// Nothing is sent before this.
    public private(set) var pausedUntil: Date?
    /// A probe is on its way.
    public private(set) var probing = false
    /// Pauses in this outage so far.
    public private(set) var pauses = 0
    private var lastPause: Double = 0

    public init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = cap
    }

    /// Whether the pool is in an outage.
    public var isOut: Bool { since != nil }

    /// Whether one more request may be sent at `now`: any while reachable; while out, one probe once the
    /// pause is over (call `probeSent` when it goes).
    public func maySend(now: Date) -> Bool {
        guard isOut else { return true }
        return !probing && pausedUntil.map { now >= $0 } ?? true
    }

    /// The probe went out.
    public mutating func probeSent() {
        if isOut { probing = true }
    }

    /// A request found APNs unreachable at `now`; `unit` is a random number in [0, 1). Returns the end of
    /// the pause. Failures of requests sent before the pause began do not lengthen it.
    @discardableResult
    public mutating func unreachable(now: Date, unit: Double) -> Date {
        if let pausedUntil, !probing, now < pausedUntil { return pausedUntil }
        if since == nil { since = now }
        let low = base.seconds
        let high = min(cap.seconds, max(low, lastPause * 3))
        lastPause = low + (high - low) * min(max(unit, 0), 1)
        pauses += 1
        probing = false
        let end = now.addingTimeInterval(lastPause)
        pausedUntil = end
        return end
    }

    /// A request reached APNs (any answer, or a timeout after it was written): the outage is over.
    public mutating func reached() {
        since = nil
        pausedUntil = nil
        probing = false
        pauses = 0
        lastPause = 0
    }
}
