import Foundation

/// A small structured logger: constant messages, dotted metadata keys, passed in (never global).
/// Writes JSON lines, or a readable line when the output is a terminal. Never give it a JWT or key material.
public struct Logger: Sendable {
    /// How important a message is.
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            }
        }
    }

    /// Where and how lines go.
    public struct Sink: Sendable {
        let write: @Sendable (String) -> Void
        let json: Bool

        /// Standard error (this task's `StandardStreams`): readable on a terminal, JSON lines otherwise.
        public static var standardError: Sink {
            let streams = StandardStreams.current
            return Sink(write: streams.error, json: !streams.errorIsTerminal)
        }

        /// Discards everything.
        public static let none = Sink(write: { _ in }, json: true)

        /// Lines handed to a closure (tests).
        public static func custom(json: Bool = true, _ write: @escaping @Sendable (String) -> Void) -> Sink {
            Sink(write: write, json: json)
        }
    }

    public let label: String
    public var minimumLevel: Level
    private let sink: Sink
    private var metadata: [(String, String)]

    public init(label: String, minimumLevel: Level = .info, sink: Sink = .standardError) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
        metadata = []
    }

    /// A logger that adds `key=value` to every line.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata.append((key, value))
        return copy
    }

    public func debug(_ message: StaticString, _ fields: (String, String)...) { log(.debug, message, fields) }
    public func info(_ message: StaticString, _ fields: (String, String)...) { log(.info, message, fields) }
    public func warning(_ message: StaticString, _ fields: (String, String)...) { log(.warning, message, fields) }
    public func error(_ message: StaticString, _ fields: (String, String)...) { log(.error, message, fields) }

    /// Writes one line at `level` (for callers that hold the fields as an array).
    public func log(_ level: Level, _ message: StaticString, _ fields: [(String, String)]) {
        guard level >= minimumLevel else { return }
        let time = Date().formatted(.iso8601)
        let all = metadata + fields
        if sink.json {
            var line =
                "{\"ts\":\"\(time)\",\"level\":\"\(level)\",\"logger\":\(quote(label)),\"msg\":\(quote("\(message)"))"
            for (key, value) in all { line += ",\(quote(key)):\(quote(value))" }
            sink.write(line + "}\n")
        } else {
            var line = "\(time) \(level) \(label): \(message)"
            for (key, value) in all { line += " \(key)=\(value.contains(" ") ? quote(value) : value)" }
            sink.write(line + "\n")
        }
    }

    private func quote(_ string: String) -> String { JSONText.quote(string) }
}
