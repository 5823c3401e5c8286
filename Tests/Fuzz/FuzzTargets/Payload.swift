import APNs
import Foundation
import Intake

extension FuzzTargets {
    /// `JSONReader.read`, `Payload(bytes:pushType:)` and `LiveActivityPayload`, with Foundation's parser as a
    /// differential oracle: whatever the strict reader accepts, JSONSerialization must read, as a dictionary when the
    /// reader saw an object, with `aps` of the kind the reader found. (The converse is not asked: Foundation accepts
    /// duplicate keys and a byte-order mark, which the reader refuses on purpose.)
    public static func payload(_ bytes: [UInt8]) {
        let tree = try? JSONReader.read(bytes)
        let isObject = tree.map { $0[$0.root].kind == .object } ?? false
        let apsKind = tree.flatMap { tree in tree.member(of: tree.root, named: "aps").map { tree[$0.value].kind } }
        if tree != nil {
            let parsed: Any
            do {
                parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            } catch {
                require(false, "JSONReader accepted what JSONSerialization refuses (\(error)): \(shown(bytes))")
                return
            }
            let object = parsed as? [String: Any]
            require((object != nil) == isObject, "JSONReader and Foundation disagree on an object: \(shown(bytes))")
            let aps = object?["aps"]
            switch apsKind {
            case nil: require(aps == nil, "the reader saw no aps, Foundation did: \(shown(bytes))")
            case .object:
                require(
                    aps is [String: Any],
                    "the reader saw an aps object, Foundation \(String(describing: aps)): \(shown(bytes))")
            case .array:
                require(
                    aps is [Any], "the reader saw an aps array, Foundation \(String(describing: aps)): \(shown(bytes))")
            case .string: require(aps is String, "the reader saw an aps string: \(shown(bytes))")
            case .number, .bool, .null:
                require(aps is NSNumber || aps is NSNull, "the reader saw an aps number/literal: \(shown(bytes))")
            }
        }
        // Payload adds the size limit and the aps rule on top of the reader; each push type's answer must agree.
        for pushType in [PushType.alert, .voip, .mdm] {
            let payload = try? Payload(bytes: bytes, pushType: pushType)
            let expected =
                isObject && !bytes.isEmpty && bytes.count <= pushType.payloadLimit
                && (apsKind == .object || (apsKind == nil && pushType == .mdm))
            require(
                (payload != nil) == expected,
                "Payload(\(pushType)) \(payload == nil ? "refused" : "accepted") \(shown(bytes))")
            if let payload { require(payload.bytes == bytes, "Payload changed the bytes") }
        }
        // A liveactivity payload is read again for ActivityKit's rules: whatever Payload accepted must read again, so a
        // refusal names a rule of `aps`, never the JSON.
        if let payload = try? Payload(bytes: bytes, pushType: .liveactivity) {
            do {
                _ = try LiveActivityPayload(payload: payload)
            } catch {
                guard case .invalidLiveActivity(let why) = error else {
                    require(false, "LiveActivityPayload refused what Payload accepted (\(error)): \(shown(bytes))")
                    return
                }
                require(why.hasPrefix("aps.") && !why.contains("\n"), "not one line naming an aps member: \(why)")
            }
        }
    }
}

/// The start of an input, escaped, for an oracle's message.
func shown(_ bytes: [UInt8]) -> String {
    Printable.escaped(String(decoding: bytes.prefix(200), as: UTF8.self))
        + (bytes.count > 200 ? "…(\(bytes.count) bytes)" : "")
}
