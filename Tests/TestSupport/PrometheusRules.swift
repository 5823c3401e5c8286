import Foundation

/// Reads a Prometheus rules file (deploy/prometheus/apnsd-rules.yml) and its promtool unit tests without a YAML
/// library: the expressions, the metric names they use, the alerts, and which alerts the tests see fire or stay
/// quiet. Enough for files written as those are (block or one-line `expr:` values, one `alertname:` per case).
public enum PrometheusRules {
    /// The file holding apnsd's alerting rules, from the repository's root.
    public static let path = "deploy/prometheus/apnsd-rules.yml"
    /// Its promtool unit tests.
    public static let testPath = "deploy/prometheus/apnsd-rules_test.yml"

    /// The repository's root (this file is Tests/TestSupport/PrometheusRules.swift).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Each rule's `expr`, block scalars joined by newlines, quotes of a one-line value removed.
    public static func expressions(in text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var expressions: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            var key = Substring(line).drop { $0 == " " }
            if key.hasPrefix("- ") { key = key.dropFirst(2).drop { $0 == " " } }
            guard key.hasPrefix("expr:") else { continue }
            let indent = line.count - key.count
            let value = key.dropFirst("expr:".count).trimmingCharacters(in: .whitespaces)
            guard value.isEmpty || value.hasPrefix(">") || value.hasPrefix("|") else {
                let quoted =
                    value.count >= 2 && (value.first == "\"" || value.first == "'") && value.last == value.first
                expressions.append(quoted ? String(value.dropFirst().dropLast()) : value)
                continue
            }
            var block: [String] = []
            while index < lines.count {
                let next = lines[index]
                let blank = next.allSatisfy { $0 == " " }
                if !blank && next.prefix(while: { $0 == " " }).count <= indent { break }
                block.append(next.trimmingCharacters(in: .whitespaces))
                index += 1
            }
            expressions.append(block.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return expressions
    }

    /// The metric names the expressions select: identifiers outside strings, label matchers, ranges and the label
    /// lists of `by`, `without`, `on`, `ignoring`, `group_left` and `group_right`, that are neither a function
    /// (followed by `(`) nor a keyword.
    public static func metricNames(in text: String) -> Set<String> {
        // A name not inside another word or a number (`15m`), taken whole (possessive: "rate(" never yields "rat"),
        // and not a function's.
        let identifier = try! NSRegularExpression(pattern: #"(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*+(?!\s*\()"#)
        var names: Set<String> = []
        for expression in expressions(in: text) {
            var stripped = expression
            for pattern in [
                #""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`"#, #"\{[^}]*\}"#, #"\[[^\]]*\]"#,
                #"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"#,
            ] {
                stripped = stripped.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
            }
            let range = NSRange(stripped.startIndex..., in: stripped)
            for match in identifier.matches(in: stripped, range: range) {
                let name = String(stripped[Range(match.range, in: stripped)!])
                if !keywords.contains(name.lowercased()) { names.insert(name) }
            }
        }
        return names
    }

    private static let keywords: Set<String> = [
        "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
        "inf", "nan", "atan2",
    ]

    /// The alerts the file defines, in order.
    public static func alerts(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let key = line.drop { $0 == " " }
            guard key.hasPrefix("- alert:") else { return nil }
            return key.dropFirst("- alert:".count).trimmingCharacters(in: .whitespaces)
        }
    }

    /// For each alert the unit tests name: whether some case expects it firing, and whether some expects it quiet
    /// (`exp_alerts: []`).
    public static func testedCases(in text: String) -> [String: (fires: Bool, quiet: Bool)] {
        var cases: [String: (fires: Bool, quiet: Bool)] = [:]
        var current: String?
        for line in text.split(separator: "\n") {
            let key = line.drop { $0 == " " }
            if key.hasPrefix("alertname:") {
                current = key.dropFirst("alertname:".count).trimmingCharacters(in: .whitespaces)
            } else if key.hasPrefix("exp_alerts:"), let alert = current {
                let quiet = key.dropFirst("exp_alerts:".count).trimmingCharacters(in: .whitespaces) == "[]"
                var seen = cases[alert] ?? (false, false)
                if quiet { seen.quiet = true } else { seen.fires = true }
                cases[alert] = seen
                current = nil
            }
        }
        return cases
    }
}
