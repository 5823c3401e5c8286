import APNs

/// A length of time as operators write it: a whole number and a unit, `s`, `m`, `h` or `d` (`90m`, `24h`, `30d`).
/// Used by the retention settings; printed back in the unit it was given in.
public struct TimeSpan: Sendable, Hashable, CustomStringConvertible {
    /// The length in seconds.
    public let seconds: Int64
    /// The text it was given as (or made from), e.g. `30d`.
    public let description: String

    /// The longest span accepted: 100 years, far beyond any retention, and far from overflowing milliseconds.
    public static let maximumSeconds: Int64 = 100 * 365 * 86_400

    /// `count` units of `unit` (`s`, `m`, `h`, `d`).
    public init(_ count: Int64, _ unit: Character) {
        seconds = count * (Self.unitSeconds[unit] ?? 1)
        description = "\(count)\(unit)"
    }

    /// Parses `90m`, `24h`, `30d` or `45s`; `name` is the setting or flag named in the error. Zero is refused: a
    /// retention of nothing would delete what was just finished, which no one means.
    public init(parsing text: String, name: String) throws(IntakeError) {
        let problem = IntakeError(
            "\(name) must be a whole number followed by s, m, h or d (e.g. 90m, 24h, 30d), more than 0 and at most 36500d, got '\(Printable.escaped(text))'"
        )
        guard let unit = text.last, let perUnit = Self.unitSeconds[unit] else { throw problem }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let count = Int64(digits), count > 0, count <= Self.maximumSeconds / perUnit
        else { throw problem }
        seconds = count * perUnit
        description = "\(count)\(unit)"
    }

    /// The length as a `Duration`.
    public var duration: Duration { .seconds(seconds) }

    /// The units and their seconds; `PastTime` reads durations with the same ones.
    static let unitSeconds: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
}
