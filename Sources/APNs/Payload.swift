import Foundation

/// A notification body: a JSON object with an `aps` dictionary, within Apple's size limit.
public struct Payload: Hashable, Sendable {
    /// The exact bytes sent to APNs.
    public let bytes: [UInt8]

    /// Validates `bytes` for `pushType`: not empty, within its limit, a JSON object with an `aps` dictionary.
    public init(bytes: [UInt8], pushType: PushType = .alert) throws(APNsError) {
        try Self.validate(bytes, limit: pushType.payloadLimit)
        self.bytes = bytes
    }

    /// Validates the UTF-8 of `json`.
    public init(json: String, pushType: PushType = .alert) throws(APNsError) {
        try self.init(bytes: Array(json.utf8), pushType: pushType)
    }

    /// Re-checks the size for another push type (a payload validated for VoIP may be too big for alert).
    public func validate(for pushType: PushType) throws(APNsError) {
        if bytes.count > pushType.payloadLimit { throw .payloadTooLarge(bytes: bytes.count, limit: pushType.payloadLimit) }
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private static func validate(_ bytes: [UInt8], limit: Int) throws(APNsError) {
        guard !bytes.isEmpty else { throw .payloadEmpty }
        guard bytes.count <= limit else { throw .payloadTooLarge(bytes: bytes.count, limit: limit) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw .payloadNotJSONObject("invalid JSON")
        }
        guard let dictionary = object as? [String: Any] else { throw .payloadNotJSONObject("top level is not an object") }
        guard dictionary["aps"] is [String: Any] else { throw .payloadMissingAps }
    }
}
