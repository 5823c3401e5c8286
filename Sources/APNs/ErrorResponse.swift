import Foundation

/// An APNs response: the status, and for errors the `reason` and (410 only) `timestamp` of the JSON body.
public struct ErrorResponse: Hashable, Sendable {
    public var status: Int
    public var reason: Reason?
    /// Milliseconds since 1970 when APNs last knew the token was invalid (410 only).
    public var timestamp: Int64?

    public init(status: Int, reason: Reason?, timestamp: Int64? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
    }

    /// Parses the body of an APNs response; a body that is not Apple's JSON leaves reason and timestamp nil.
    public init(status: Int, body: [UInt8]) {
        self.init(status: status, reason: nil)
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        else { return }
        if let reason = object["reason"] as? String { self.reason = Reason(rawValue: reason) }
        if let number = object["timestamp"] as? NSNumber { timestamp = number.int64Value }
    }

    /// Apple's JSON error body: `{"reason":"..."}`, plus `"timestamp"` when given.
    public var jsonBody: [UInt8] {
        guard let reason else { return [] }
        if let timestamp { return Array("{\"reason\":\"\(reason.rawValue)\",\"timestamp\":\(timestamp)}".utf8) }
        return Array("{\"reason\":\"\(reason.rawValue)\"}".utf8)
    }
}
