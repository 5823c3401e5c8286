import Foundation

/// A notification body: a JSON object with an `aps` dictionary (MDM pushes carry none), within Apple's size
/// limit, checked strictly (`JSONReader`): valid UTF-8, no byte-order mark, no duplicate keys.
public struct Payload: Hashable, Sendable {
    /// The exact bytes sent to APNs.
    public let bytes: [UInt8]

    /// Validates `bytes` for `pushType`: not empty, within its limit, a JSON object whose `aps`, when present,
    /// is an object; only `mdm` pushes may leave `aps` out.
    public init(bytes: [UInt8], pushType: PushType = .alert) throws(APNsError) {
        try Self.validate(bytes, pushType: pushType)
        self.bytes = bytes
    }

    /// Validates `bytes` for `pushType` within `limit` instead of the push type's (a broadcast's 5120 bytes).
    public init(bytes: [UInt8], pushType: PushType, limit: Int) throws(APNsError) {
        try Self.validate(bytes, pushType: pushType, limit: limit)
        self.bytes = bytes
    }

    /// Bytes read back from where they were stored after validation: not checked again.
    public init(trusted bytes: [UInt8]) { self.bytes = bytes }

    /// Validates the UTF-8 of `json`.
    public init(json: String, pushType: PushType = .alert) throws(APNsError) {
        try self.init(bytes: Array(json.utf8), pushType: pushType)
    }

    /// Re-checks the size for another push type (a payload validated for VoIP may be too big for alert).
    public func validate(for pushType: PushType) throws(APNsError) {
        if bytes.count > pushType.payloadLimit {
            throw .payloadTooLarge(bytes: bytes.count, limit: pushType.payloadLimit)
        }
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private static func validate(_ bytes: [UInt8], pushType: PushType, limit: Int? = nil) throws(APNsError) {
        let limit = limit ?? pushType.payloadLimit
        guard !bytes.isEmpty else { throw .payloadEmpty }
        guard bytes.count <= limit else { throw .payloadTooLarge(bytes: bytes.count, limit: limit) }
        let tree: JSONTree
        do { tree = try JSONReader.read(bytes) } catch { throw .payloadNotJSONObject(error.description) }
        guard tree[tree.root].kind == .object else { throw .payloadNotJSONObject("the top level is not an object") }
        switch tree.member(of: tree.root, named: "aps").map({ tree[$0.value].kind }) {
        case .object: return
        case nil where pushType == .mdm: return
        case nil: throw .payloadMissingAps
        default: throw .payloadApsNotObject
        }
    }
}
