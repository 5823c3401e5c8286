import APNs
import Foundation

/// A moment an operator names to look back to (`apnsd log --since/--until`): a duration meaning "that long
/// ago" — a whole number followed by `s`, `m`, `h` or `d` (`90m`, `24h`, `7d`) — or an ISO 8601 time.
public enum PastTime {
    /// Parses `text` as of `now`; the error names both accepted forms.
    public static func parse(_ text: String, now: Date) throws(IntakeError) -> Date {
        if let seconds = duration(text) { return now.addingTimeInterval(-Double(seconds)) }
        // Not a duration: an ISO 8601 time (anything with a '-' and a 'T'), or neither.
        guard text.contains("-") else {
            throw IntakeError(
                "'\(Printable.escaped(String(text.prefix(60))))' is neither a duration such as 90m, 24h or 7d nor an ISO 8601 time such as 2026-12-01T09:00:00Z"
            )
        }
        return try Timestamp.parse(text)
    }

    /// Seconds in a duration such as `90m`, or nil when `text` is not one (at most 100 years: beyond it is a typo).
    public static func duration(_ text: String) -> Int? {
        guard let unit = text.last, let seconds = TimeSpan.unitSeconds[unit].map(Int.init), text.count > 1,
            text.count <= 12
        else { return nil }
        let digits = text.dropLast()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(digits),
            count <= 36_500 * 86_400 / seconds
        else { return nil }
        return count * seconds
    }
}
