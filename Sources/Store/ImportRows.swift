import APNs
import QueueModel

/// Registrations laid out for multi-row statements: every text in one byte buffer, bound in place
/// (`Statement.bindText(_:_:)`) instead of SQLite copying each string, and no `String` touched while binding.
struct ImportRows {
    struct Row {
        var token: Range<Int>
        var topic: Range<Int>
        var environment: Range<Int>
        var user: Range<Int>?
        var kind: Range<Int>
        var activityType: Range<Int>?
    }

    private(set) var bytes: [UInt8] = []
    private(set) var rows: [Row] = []

    /// `registrations[indices]` in that order, a merged registration replacing the one at its index.
    init(_ registrations: [DeviceRegistration], _ indices: ArraySlice<Int>, merged: [Int: DeviceRegistration] = [:]) {
        rows.reserveCapacity(indices.count)
        bytes.reserveCapacity(indices.count * 100)
        for index in indices {
            if !merged.isEmpty, let registration = merged[index] {
                append(registration)
            } else {
                append(registrations[index])
            }
        }
    }

    private mutating func append(_ registration: borrowing DeviceRegistration) {
        rows.append(
            Row(
                token: append(registration.token), topic: append(registration.topic),
                environment: append(registration.environment.rawValue),
                user: registration.user.map { append($0) }, kind: append(registration.kind.rawValue),
                activityType: registration.activityType.map { append($0) }))
    }

    private mutating func append(_ token: DeviceToken) -> Range<Int> {
        let start = bytes.count
        token.withHexBytes { bytes.append(contentsOf: $0) }
        return start..<bytes.count
    }

    private mutating func append(_ text: String) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        return start..<bytes.count
    }
}
