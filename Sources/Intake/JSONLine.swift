import Foundation
import Logging

/// One JSON object on one line, keys in the order given: the CLI's `--json` output (JSON Lines) and, next,
/// the HTTP API's bodies. Strings go through the one escaper (`JSONText`).
public struct JSONLine: Sendable, CustomStringConvertible {
    public private(set) var fields: [(String, JSONValue)]

    public init(_ fields: KeyValuePairs<String, JSONValue>) {
        self.fields = fields.map { ($0.key, $0.value) }
    }

    /// Adds fields after the others.
    public func adding(_ extra: [(String, JSONValue)]) -> JSONLine {
        var copy = self
        copy.fields += extra
        return copy
    }

    public var description: String {
        "{" + fields.map { "\(JSONText.quote($0.0)):\($0.1.json)" }.joined(separator: ",") + "}"
    }

    /// ISO 8601 UTC with milliseconds, as every timestamp apnsd prints.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// A JSON scalar for `JSONLine`; nil values become null.
public enum JSONValue: Sendable {
    case string(String?)
    case int(Int?)
    case bool(Bool)
    case date(Date?)
    /// Already JSON (a number formatted by the caller).
    case raw(String)

    var json: String {
        switch self {
        case .string(let value): return value.map(JSONText.quote) ?? "null"
        case .int(let value): return value.map(String.init) ?? "null"
        case .bool(let value): return value ? "true" : "false"
        case .date(let value): return value.map { JSONText.quote(JSONLine.timestamp($0)) } ?? "null"
        case .raw(let value): return value
        }
    }
}
