import Threads

/// One series of a family (one set of label values): a counter's or gauge's value, or a histogram's buckets. Keep
/// it to skip the family's lookup on a hot path; every method is safe from any thread.
public final class MetricSeries: Sendable {
    struct State {
        var value: Double = 0
        /// Per bucket (not cumulative), the last for +Inf.
        var buckets: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
    }

    public let type: MetricType
    /// The histogram's upper bounds (without +Inf); empty for counters and gauges.
    let bounds: [Double]
    let state: Locked<State>

    init(type: MetricType, bounds: [Double]) {
        self.type = type
        self.bounds = bounds
        state = Locked(State(buckets: type == .histogram ? Array(repeating: 0, count: bounds.count + 1) : []))
    }

    /// Counter or gauge: adds `amount` (a counter ignores negative amounts, it only goes up).
    public func increment(by amount: Double = 1) {
        if type == .counter && !(amount >= 0) { return }
        state.withLock { $0.value += amount }
    }

    /// Gauge: sets the value.
    public func set(_ value: Double) {
        guard type == .gauge else { return }
        state.withLock { $0.value = value }
    }

    /// Histogram: counts `value` in the first bucket whose bound is at least it.
    public func observe(_ value: Double) {
        guard type == .histogram else { return }
        var index = bounds.count
        for (i, bound) in bounds.enumerated() where value <= bound {
            index = i
            break
        }
        state.withLock {
            $0.buckets[index] += 1
            $0.sum += value
            $0.count += 1
        }
    }

    /// Counter or gauge: the current value.
    public var value: Double { state.withLock { $0.value } }

    func snapshot() -> State { state.withLock { $0 } }
}
