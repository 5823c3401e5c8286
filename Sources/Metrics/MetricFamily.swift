import Threads

/// A metric family declared once in a `MetricsRegistry`: name, help, type, label names (each optionally bounded),
/// and its series, one per set of label values. At most `maxSeries` series: values of any further set are all
/// recorded under `other`, so a family's size is bounded whatever its callers pass.
public final class MetricFamily: Sendable {
    /// The values a sampler returns at scrape time: one per series, label values in the family's label order.
    public typealias Sample = (labels: [String], value: Double)
    public typealias Sampler = @Sendable () -> [Sample]

    public let name: String
    public let help: String
    public let type: MetricType
    public let labels: [MetricLabel]
    /// A histogram's bucket upper bounds, ascending, without +Inf.
    public let buckets: [Double]
    public let maxSeries: Int
    let series: Locked<[[String]: MetricSeries]>
    let sampler: Locked<Sampler?>

    init(name: String, help: String, type: MetricType, labels: [MetricLabel], buckets: [Double], maxSeries: Int) {
        precondition(Self.isValidName(name), "bad metric name \(name)")
        for label in labels {
            precondition(
                Self.isValidName(label.name) && !label.name.contains(":") && !label.name.hasPrefix("__")
                    && label.name != "le",
                "bad label name \(label.name)")
        }
        precondition(Set(labels.map(\.name)).count == labels.count, "duplicate label in \(name)")
        precondition(
            zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 } && buckets.allSatisfy(\.isFinite),
            "buckets must ascend")
        precondition(maxSeries >= 1)
        self.name = name
        self.help = help
        self.type = type
        self.labels = labels
        self.buckets = buckets
        self.maxSeries = maxSeries
        series = Locked([:])
        sampler = Locked(nil)
        // A family without labels has its one series from the start (a counter reads 0 before its first event).
        if labels.isEmpty { _ = self.labels([String]()) }
    }

    /// The series for these label values (in the order the family declared its labels), created on first use.
    /// Values not allowed become `other`; past `maxSeries`, every value does.
    public func labels(_ values: [String]) -> MetricSeries {
        precondition(values.count == labels.count, "\(name) takes \(labels.count) label values, got \(values.count)")
        let bounded = zip(labels, values).map { $0.bound($1) }
        return series.withLock { all in
            if let existing = all[bounded] { return existing }
            let key = all.count < maxSeries ? bounded : Array(repeating: MetricLabel.other, count: labels.count)
            if let existing = all[key] { return existing }
            let created = MetricSeries(type: type, bounds: buckets)
            all[key] = created
            return created
        }
    }

    public func labels(_ values: String...) -> MetricSeries { labels(values) }

    /// Counter or gauge: adds `amount` to the series of these label values.
    public func increment(_ values: String..., by amount: Double = 1) { labels(values).increment(by: amount) }

    /// Gauge: sets the series of these label values.
    public func set(_ values: String..., to value: Double) { labels(values).set(value) }

    /// Histogram: observes `value` in the series of these label values.
    public func observe(_ value: Double, _ values: String...) { labels(values).observe(value) }

    /// Gauge: sample the series at scrape time with `sampler` instead (queue depth, open connections …); what it
    /// returns replaces the stored series in the output, bounded the same way. Nil: back to the stored series.
    public func sample(with sampler: Sampler?) {
        precondition(type == .gauge, "only a gauge is sampled")
        self.sampler.withLock { $0 = sampler }
    }

    /// Label values (bounded) and series, sorted by label values: what `render` shows.
    func collect() -> [([String], MetricSeries.State)] {
        if let sampler = sampler.withLock({ $0 }) {
            var values: [[String]: Double] = [:]
            for sample in sampler() where sample.labels.count == labels.count {
                var key = zip(labels, sample.labels).map { $0.bound($1) }
                if values[key] == nil && values.count >= maxSeries {
                    key = Array(repeating: MetricLabel.other, count: labels.count)
                }
                values[key, default: 0] += sample.value
            }
            return values.sorted { $0.key.lexicographicallyPrecedes($1.key) }
                .map { ($0.key, MetricSeries.State(value: $0.value, buckets: [])) }
        }
        let all = series.withLock { $0 }
        return all.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.key, $0.value.snapshot()) }
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":")
        }
    }
}
