import Foundation

/// Times are stored as INTEGER milliseconds since 1970-01-01 00:00 UTC (see SCHEMA.md).
package enum Milliseconds {
    package static func from(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    package static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    package static var now: Int64 { from(Date()) }

    /// A duration in whole milliseconds (rounded towards zero).
    package static func from(_ duration: Duration) -> Int64 {
        let components = duration.components
        return components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}

extension Date {
    /// Milliseconds since 1970 UTC, as stored in the database.
    package var storeMilliseconds: Int64 { Milliseconds.from(self) }
}
