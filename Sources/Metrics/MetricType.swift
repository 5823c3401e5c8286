/// The type of a metric family, as its `# TYPE` line names it.
public enum MetricType: String, Sendable {
    case counter
    case gauge
    case histogram
}
