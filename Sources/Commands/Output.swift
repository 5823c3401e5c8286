import Foundation
import Intake
import Logging

/// How the CLI writes: results on stdout, errors and progress on stderr, JSON Lines for scripts.
enum Output {
    static func line(_ text: String) { StandardStreams.current.output(text + "\n") }

    static func error(_ text: String) { StandardStreams.current.error(text + "\n") }

    /// One JSON object on one line, keys in the order given; nil values become null.
    static func jsonLine(_ fields: KeyValuePairs<String, JSONValue>) -> String { JSONLine(fields).description }

    /// ISO 8601 UTC with milliseconds, as every timestamp of apnsd.
    static func timestamp(_ date: Date) -> String { JSONLine.timestamp(date) }

    static func quote(_ string: String) -> String { JSONText.quote(string) }

    /// `text` left-aligned in `width` columns (followed by one space when it is wider).
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
