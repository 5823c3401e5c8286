import APNs
import Foundation
import Intake

extension FuzzTargets {
    /// `JSONValidator.validate`, `Payload(bytes:pushType:)` and `LiveActivityPayload`, with Foundation's parser as a differential
    /// oracle: whatever the strict validator accepts, JSONSerialization must read as a dictionary, with `aps`
    /// of the kind the validator reported. (The converse is not asked: Foundation accepts duplicate keys and a
    /// byte-order mark, which the validator refuses on purpose.)
    public static func payload(_ bytes: [UInt8]) {
        let summary = try? JSONValidator.validate(bytes)
        if let summary {
            let parsed: Any
            do {
                parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            } catch {
                require(false, "JSONValidator accepted what JSONSerialization refuses (\(error)): \(shown(bytes))")
                return
            }
            guard let object = parsed as? [String: Any] else {
                require(false, "JSONValidator accepted a top level that is not an object: \(shown(bytes))")
                return
            }
            let aps = object["aps"]
            switch summary.aps {
            case nil: require(aps == nil, "validator saw no aps, Foundation did: \(shown(bytes))")
            case .object:
                require(
                    aps is [String: Any],
                    "validator saw an aps object, Foundation \(String(describing: aps)): \(shown(bytes))")
            case .array:
                require(
                    aps is [Any], "validator saw an aps array, Foundation \(String(describing: aps)): \(shown(bytes))")
            case .string: require(aps is String, "validator saw an aps string: \(shown(bytes))")
            case .number, .literal:
                require(aps is NSNumber || aps is NSNull, "validator saw an aps number/literal: \(shown(bytes))")
            }
        }
        // Payload adds the size limit and the aps rule on top of the validator; each push type's answer must agree.
        for pushType in [PushType.alert, .voip, .mdm] {
            let payload = try? Payload(bytes: bytes, pushType: pushType)
            let expected =
                summary != nil && !bytes.isEmpty && bytes.count <= pushType.payloadLimit
                && (summary?.aps == .object || (summary?.aps == nil && pushType == .mdm))
            require(
                (payload != nil) == expected,
                "Payload(\(pushType)) \(payload == nil ? "refused" : "accepted") \(shown(bytes))")
            if let payload { require(payload.bytes == bytes, "Payload changed the bytes") }
        }
        // A liveactivity payload is read again by Intake's parser for ActivityKit's rules: whatever Payload accepted,
        // the parser must read too, so a refusal names a rule of `aps`, never the JSON.
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
