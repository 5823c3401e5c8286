import Foundation
import Threads

/// A small structured logger: constant messages, dotted metadata keys, passed in (never global).
/// Writes JSON lines, or a readable line when the output is a terminal. Never give it a JWT or key material.
///
/// A JSON line is `{"ts":…,"level":…,"logger":…,"msg":…}` and the fields, in order, each key once (a line's own
/// field replaces metadata of the same key): counts and durations are numbers, flags booleans, ids strings.
/// When standard error is the journal, each line starts with its syslog priority (`<6>{…}`).
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

        /// The syslog priority journald files the line under: err, warning, info, debug.
        public var syslogPriority: Int {
            switch self {
            case .debug: return 7
            case .info: return 6
            case .warning: return 4
            case .error: return 3
            }
        }
    }

    /// Where and how lines go.
    public struct Sink: Sendable {
        let write: @Sendable (String) -> Void
        let json: Bool
        /// Each JSON line starts with `<priority>` (the journal's stream protocol; journald strips it).
        let syslogPrefix: Bool

        /// Standard error (this task's `StandardStreams`): readable on a terminal, JSON lines otherwise, with the
        /// syslog priority in front when it is the journal.
        public static var standardError: Sink {
            let streams = StandardStreams.current
            return Sink(
                write: streams.error, json: !streams.errorIsTerminal,
                syslogPrefix: !streams.errorIsTerminal && streams.errorIsJournal)
        }

        /// Discards everything.
        public static let none = Sink(write: { _ in }, json: true, syslogPrefix: false)

        /// Lines handed to a closure (tests).
        public static func custom(json: Bool = true, _ write: @escaping @Sendable (String) -> Void) -> Sink {
            Sink(write: write, json: json, syslogPrefix: false)
        }
    }

    /// Metadata learnt after loggers were handed out (a worker's id, once it registers): one box shared by a
    /// logger and every logger made from it.
    private final class SharedFields: Sendable {
        let fields = Locked<[(String, Value)]>([])
    }

    public private(set) var label: String
    public var minimumLevel: Level
    private let sink: Sink
    private var metadata: [(String, Value)]
    private let shared: SharedFields

    public init(label: String, minimumLevel: Level = .info, sink: Sink = .standardError) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
        metadata = []
        shared = SharedFields()
    }

    /// A logger that adds `key=value` to every line.
    public func with(_ key: String, _ value: Value) -> Logger {
        var copy = self
        copy.metadata.append((key, value))
        return copy
    }

    /// The same logger (its sink, metadata and shared fields) under another label.
    public func labeled(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    /// Adds `key=value` (or replaces its value) on every line of this logger and of every logger made from it,
    /// before or after this call: for what is known only once they are in use, such as a worker's id.
    public func setShared(_ key: String, _ value: Value) {
        shared.fields.withLock { fields in
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                fields[index].1 = value
            } else {
                fields.append((key, value))
            }
        }
    }

    public func debug(_ message: StaticString, _ fields: (String, Value)...) { log(.debug, message, fields) }
    public func info(_ message: StaticString, _ fields: (String, Value)...) { log(.info, message, fields) }
    public func warning(_ message: StaticString, _ fields: (String, Value)...) { log(.warning, message, fields) }
    public func error(_ message: StaticString, _ fields: (String, Value)...) { log(.error, message, fields) }

    /// Writes one line at `level` whatever `minimumLevel` says: lines an operator waits for (a reload's result).
    public func always(_ level: Level, _ message: StaticString, _ fields: (String, Value)...) {
        log(level, message, fields, always: true)
    }

    /// Writes one line at `level` (for callers that hold the fields as an array); `always` ignores `minimumLevel`.
    public func log(_ level: Level, _ message: StaticString, _ fields: [(String, Value)], always: Bool = false) {
        guard always || level >= minimumLevel else { return }
        let time = Self.timestamp(Date())
        var all: [(String, Value)] = []
        for (key, value) in shared.fields.withLock({ $0 }) + metadata + fields {
            if let index = all.firstIndex(where: { $0.0 == key }) {
                all[index].1 = value
            } else {
                all.append((key, value))
            }
        }
        if sink.json {
            var line = sink.syslogPrefix ? "<\(level.syslogPriority)>" : ""
            line +=
                "{\"ts\":\"\(time)\",\"level\":\"\(level)\",\"logger\":\(quote(label)),\"msg\":\(quote("\(message)"))"
            for (key, value) in all { line += ",\(quote(key)):\(value.json)" }
            sink.write(line + "}\n")
        } else {
            var line = "\(time) \(level) \(label): \(message)"
            for (key, value) in all { line += " \(key)=\(value.readable)" }
            sink.write(line + "\n")
        }
    }

    /// RFC 3339 in UTC with milliseconds: `2026-12-02T15:58:02.123Z`.
    public static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(((milliseconds % 1000) + 1000) % 1000))
    }

    private func quote(_ string: String) -> String { JSONText.quote(string) }
}
