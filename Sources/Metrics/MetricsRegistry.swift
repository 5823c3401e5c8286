import Threads

/// Metric families, each declared once, rendered together in the Prometheus text format (`render()`).
public final class MetricsRegistry: Sendable {
    /// Series per family unless a declaration says otherwise.
    public static let defaultMaxSeries = 200
    /// Seconds: 1 ms … 10 s, for request durations.
    public static let defaultBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    let families: Locked<[String: MetricFamily]>

    public init() { families = Locked([:]) }

    public func counter(_ name: String, help: String, labels: [MetricLabel] = [], maxSeries: Int = defaultMaxSeries)
        -> MetricFamily
    {
        declare(MetricFamily(name: name, help: help, type: .counter, labels: labels, buckets: [], maxSeries: maxSeries))
    }

    public func gauge(_ name: String, help: String, labels: [MetricLabel] = [], maxSeries: Int = defaultMaxSeries)
        -> MetricFamily
    {
        declare(MetricFamily(name: name, help: help, type: .gauge, labels: labels, buckets: [], maxSeries: maxSeries))
    }

    /// A gauge sampled at scrape time by `sampler`.
    public func gauge(
        _ name: String, help: String, labels: [MetricLabel] = [], maxSeries: Int = defaultMaxSeries,
        sampler: @escaping MetricFamily.Sampler
    ) -> MetricFamily {
        let family = gauge(name, help: help, labels: labels, maxSeries: maxSeries)
        family.sample(with: sampler)
        return family
    }

    /// A histogram with fixed `buckets` (upper bounds, ascending; +Inf is added).
    public func histogram(
        _ name: String, help: String, labels: [MetricLabel] = [], buckets: [Double] = defaultBuckets,
        maxSeries: Int = defaultMaxSeries
    ) -> MetricFamily {
        declare(
            MetricFamily(
                name: name, help: help, type: .histogram, labels: labels, buckets: buckets, maxSeries: maxSeries))
    }

    /// The family declared under `name`, if any.
    public func family(_ name: String) -> MetricFamily? { families.withLock { $0[name] } }

    /// Every family in the Prometheus text exposition format 0.0.4, sorted by name and label values (stable).
    public func render() -> String {
        let all = families.withLock { $0 }.values.sorted { $0.name < $1.name }
        var text = ""
        for family in all { PrometheusText.append(family, to: &text) }
        return text
    }

    private func declare(_ family: MetricFamily) -> MetricFamily {
        families.withLock { families in
            precondition(families[family.name] == nil, "metric \(family.name) declared twice")
            families[family.name] = family
        }
        return family
    }
}
