import Foundation

/// When the worker last heard from APNs, and since when work it tried to send has gone unanswered: what
/// `/readyz` decides on. A value fed by the worker; the decision (`readiness`) is a pure function of it and a time.
public struct APNsContact: Sendable, Hashable {
    /// The last HTTP answer from APNs (any status: APNs is reachable and speaks), nil before the first.
    public private(set) var lastAnswer: Date?
    /// The first request that got no answer (transport failure) since the last answer; nil when every request
    /// since then was answered.
    public private(set) var unansweredSince: Date?

    public init(lastAnswer: Date? = nil, unansweredSince: Date? = nil) {
        self.lastAnswer = lastAnswer
        self.unansweredSince = unansweredSince
    }

    /// APNs answered at `time`.
    public mutating func answered(at time: Date) {
        lastAnswer = max(lastAnswer ?? time, time)
        unansweredSince = nil
    }

    /// A request got no answer at `time`.
    public mutating func unanswered(at time: Date) {
        if unansweredSince == nil { unansweredSince = time }
    }

    /// "ok" when nothing has gone unanswered, APNs answered within `window` of `now`, or the requests going
    /// unanswered began within it (one failed request is not an outage); otherwise why not.
    public func readiness(now: Date, window: TimeInterval = 60) -> String {
        guard let since = unansweredSince, now.timeIntervalSince(since) > window else { return "ok" }
        if let lastAnswer, now.timeIntervalSince(lastAnswer) <= window { return "ok" }
        let silent = Int(now.timeIntervalSince(lastAnswer ?? since).rounded(.down))
        return lastAnswer == nil
            ? "no answer from APNs yet; sends failing for \(silent) s"
            : "no answer from APNs for \(silent) s; sends failing since then"
    }
}
