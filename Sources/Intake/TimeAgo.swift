import Foundation
import APNs

/// Times given on the command line and in query strings: ISO 8601, or a duration back from now (`90s`, `90m`,
/// `24h`, `7d`).
public enum TimeAgo {
    /// The seconds of a duration such as `90m` (units s, m, h, d; at most 100 years), nil when `text` is not one.
    public static func seconds(_ text: String) -> TimeInterval? {
        guard let last = text.last, let unit = ["s": 1.0, "m": 60, "h": 3600, "d": 86400][String(last)],
              let amount = Double(text.dropLast()), amount.isFinite, amount >= 0, !text.dropLast().contains("e"),
              amount * unit <= 100 * 365 * 86400 else { return nil }
        return amount * unit
    }

    /// ISO 8601, or a duration back from `now`.
    public static func parse(_ text: String, now: Date = Date()) throws(IntakeError) -> Date {
        if let seconds = seconds(text) { return now.addingTimeInterval(-seconds) }
        do {
            return try Timestamp.parse(text)
        } catch {
            throw IntakeError("'\(Printable.escaped(String(text.prefix(60))))' is neither a duration such as 90m, 24h or 7d nor an ISO 8601 time such as 2026-12-01T09:00:00Z")
        }
    }
}
