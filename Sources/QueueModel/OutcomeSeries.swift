import Foundation

/// Outcomes and requests per step of a window (`GET /v1/stats/series`), of everything or of one bulk campaign: what
/// a chart of rates over time draws. Read from per-minute counters, so a step is whole minutes, and steps are
/// aligned to multiples of the step since 1970 (a 5-minute step starts at :00, :05, …).
public struct OutcomeSeries: Sendable, Hashable {
    /// One step: when it starts, the requests sent to APNs in it, and its outcomes by status (`retry` for an answer
    /// to be tried again; statuses without any are left out).
    public struct Point: Sendable, Hashable {
        public var at: Date
        public var requests: Int
        public var outcomes: [String: Int]

        public init(at: Date, requests: Int, outcomes: [String: Int]) {
            self.at = at
            self.requests = requests
            self.outcomes = outcomes
        }
    }

    /// The steps a window covers: from the one holding `since` to the one holding `now`.
    public struct Window: Sendable, Hashable {
        /// Minutes per step.
        public var stepMinutes: Int64
        public var firstStep: Int64
        public var lastStep: Int64
        /// Now: the last step ends after it.
        public var until: Date

        /// `step` in seconds: a whole number of minutes, at least one.
        public init(since: Date, step: Int, now: Date) {
            until = now
            stepMinutes = Int64(max(1, step / 60))
            firstStep = Self.minute(since) / stepMinutes
            lastStep = max(firstStep, Self.minute(now) / stepMinutes)
        }

        /// The first minute of the first step and the last minute of the last.
        public var firstMinute: Int64 { firstStep * stepMinutes }
        public var lastMinute: Int64 { (lastStep + 1) * stepMinutes - 1 }
        public var count: Int { Int(lastStep - firstStep + 1) }

        static func minute(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 60).rounded(.down)) }
    }

    /// One row of per-minute counters, as a store reads it.
    public struct MinuteCount: Sendable, Hashable {
        public var minute: Int64
        public var status: String
        public var reason: String
        public var count: Int
        public var requests: Int

        public init(minute: Int64, status: String, reason: String, count: Int, requests: Int) {
            self.minute = minute
            self.status = status
            self.reason = reason
            self.count = count
            self.requests = requests
        }
    }

    /// Seconds per step.
    public var step: Int
    public var campaign: CampaignID?
    /// Every step of the window in time order, those without outcomes included; the last one is still going on.
    public var points: [Point]
    /// The whole window's outcomes by status and reason (`none` without one).
    public var reasons: [String: [String: Int]]
    /// When the series was read.
    public var until: Date

    public init(step: Int, campaign: CampaignID?, points: [Point], reasons: [String: [String: Int]], until: Date) {
        self.step = step
        self.campaign = campaign
        self.points = points
        self.reasons = reasons
        self.until = until
    }

    /// The series of `window` from per-minute `counts` (any order; those outside the window are ignored).
    public init(_ window: Window, campaign: CampaignID?, counts: [MinuteCount]) {
        var points = (0..<window.count).map { index in
            Point(
                at: Date(timeIntervalSince1970: Double((window.firstStep + Int64(index)) * window.stepMinutes * 60)),
                requests: 0, outcomes: [:])
        }
        var reasons: [String: [String: Int]] = [:]
        for count in counts {
            let index = Int(count.minute / window.stepMinutes - window.firstStep)
            guard points.indices.contains(index) else { continue }
            points[index].requests += count.requests
            points[index].outcomes[count.status, default: 0] += count.count
            reasons[count.status, default: [:]][count.reason, default: 0] += count.count
        }
        self.init(
            step: Int(window.stepMinutes * 60), campaign: campaign, points: points, reasons: reasons,
            until: window.until)
    }
}
