import Foundation

extension Logger {
    /// A field's value, typed as a pipeline reads it: counts, durations and flags are JSON numbers and booleans;
    /// ids stay strings (as in the API). A string literal or interpolation is a `.string`.
    public enum Value: Sendable, Equatable, ExpressibleByStringInterpolation, ExpressibleByBooleanLiteral {
        case string(String)
        case int(Int)
        /// A number written with `places` decimals (durations: `1.5` seconds, `12.345` ms).
        case decimal(Double, places: Int)
        case bool(Bool)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(booleanLiteral value: Bool) { self = .bool(value) }

        /// Its JSON text (a number that is not finite is `null`).
        var json: String {
            switch self {
            case .string(let text): return JSONText.quote(text)
            case .int(let count): return String(count)
            case .decimal(let number, let places):
                return number.isFinite ? String(format: "%.\(max(0, min(places, 9)))f", number) : "null"
            case .bool(let flag): return flag ? "true" : "false"
            }
        }

        /// As a terminal line shows it: strings quoted only when they hold a space.
        var readable: String {
            if case .string(let text) = self { return text.contains(" ") ? JSONText.quote(text) : text }
            return json
        }
    }
}
