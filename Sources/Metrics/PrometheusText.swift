/// The Prometheus text exposition format, version 0.0.4: `# HELP` and `# TYPE` lines, then one line per sample.
public enum PrometheusText {
    /// The Content-Type of `MetricsRegistry.render()`'s text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func append(_ family: MetricFamily, to text: inout String) {
        text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
        text += "# TYPE \(family.name) \(family.type.rawValue)\n"
        let names = family.labels.map(\.name)
        for (values, state) in family.collect() {
            let pairs = Array(zip(names, values))
            switch family.type {
            case .counter, .gauge:
                text += "\(family.name)\(labels(pairs)) \(format(state.value))\n"
            case .histogram:
                var cumulative: UInt64 = 0
                for (index, count) in state.buckets.enumerated() {
                    cumulative += count
                    let bound = index < family.buckets.count ? format(family.buckets[index]) : "+Inf"
                    text += "\(family.name)_bucket\(labels(pairs + [("le", bound)])) \(cumulative)\n"
                }
                text += "\(family.name)_sum\(labels(pairs)) \(format(state.sum))\n"
                text += "\(family.name)_count\(labels(pairs)) \(state.count)\n"
            }
        }
    }

    /// `{a="x",b="y"}`, or nothing without labels.
    static func labels(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        return "{" + pairs.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// A sample value or bucket bound: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Help text: backslash and line feed escaped.
    public static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A label value: backslash, double quote and line feed escaped.
    public static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
