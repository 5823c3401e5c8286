import APNs
import Foundation
import Testing

/// A JSON object `{"aps":{"alert":"xxx…"}}` of exactly `size` bytes.
func alertJSON(bytes size: Int) -> String {
    let prefix = #"{"aps":{"alert":""#
    let suffix = #""}}"#
    let body = prefix + String(repeating: "x", count: size - prefix.utf8.count - suffix.utf8.count) + suffix
    precondition(body.utf8.count == size)
    return body
}

/// docs/APNS.md: a JSON object with an `aps` dictionary; custom keys beside it; at most 4096 bytes (5120 for voip).
@Suite("Payload")
struct PayloadTests {
    @Test("the size helper is exact and valid JSON")
    func helper() throws {
        let json = alertJSON(bytes: 100)
        #expect(json.utf8.count == 100)
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
    }

    @Test("an empty body is refused")
    func empty() {
        #expect(throws: APNsError.payloadEmpty) { try Payload(bytes: []) }
        #expect(throws: APNsError.payloadEmpty) { try Payload(json: "", pushType: .voip) }
    }

    @Test(
        "limits: 4096 bytes for alert, 5120 for voip, one more is refused",
        arguments: [
            (PushType.alert, 4096), (.background, 4096), (.liveactivity, 4096), (.voip, 5120),
        ])
    func limits(type: PushType, limit: Int) throws {
        let atLimit = try Payload(json: alertJSON(bytes: limit), pushType: type)
        #expect(atLimit.bytes.count == limit)
        #expect(throws: APNsError.payloadTooLarge(bytes: limit + 1, limit: limit)) {
            try Payload(json: alertJSON(bytes: limit + 1), pushType: type)
        }
    }

    @Test("a voip-sized payload is too large for alert when re-checked")
    func revalidate() throws {
        let payload = try Payload(json: alertJSON(bytes: 5000), pushType: .voip)
        try payload.validate(for: .voip)
        #expect(throws: APNsError.payloadTooLarge(bytes: 5000, limit: 4096)) { try payload.validate(for: .alert) }
        #expect(throws: APNsError.payloadTooLarge(bytes: 5000, limit: 4096)) {
            try Payload(json: alertJSON(bytes: 5000))
        }
    }

    @Test(
        "valid objects with aps, custom keys beside it",
        arguments: [
            #"{"aps":{}}"#, #"{"aps":{"alert":"hi"},"custom":{"id":1}}"#, #"{"aps":{"content-available":1}}"#,
            "{ \"aps\" : { } }\n",
        ])
    func valid(json: String) throws {
        let payload = try Payload(json: json)
        #expect(payload.bytes == Array(json.utf8))
        #expect(payload.string == json)
    }

    @Test(
        "invalid JSON and non-object top levels are refused",
        arguments: [
            "{", "not json", #"{"aps":{}"#, #"[{"aps":{}}]"#, "\"aps\"", "42", "null",
        ])
    func notObject(json: String) {
        #expect {
            try Payload(json: json)
        } throws: { error in
            guard let error = error as? APNsError, case .payloadNotJSONObject = error else { return false }
            return true
        }
    }

    @Test("an object without an aps dictionary is refused", arguments: ["{}", #"{"alert":"hi"}"#, #"{"APS":{}}"#])
    func missingAps(json: String) {
        #expect(throws: APNsError.payloadMissingAps) { try Payload(json: json) }
    }

    @Test(
        "aps that is not an object is refused",
        arguments: [#"{"aps":1}"#, #"{"aps":"alert"}"#, #"{"aps":[]}"#, #"{"aps":null}"#])
    func apsNotObject(json: String) {
        #expect(throws: APNsError.payloadApsNotObject) { try Payload(json: json) }
    }

    @Test func mdmPushesCarryNoAps() throws {
        let payload = try Payload(json: #"{"mdm":"7f2e0c1a-1b2c-4d5e-8f90-123456789abc"}"#, pushType: .mdm)
        #expect(payload.bytes.count > 10)
        #expect(throws: APNsError.payloadApsNotObject) { try Payload(json: #"{"aps":2,"mdm":"x"}"#, pushType: .mdm) }
    }

    @Test(
        "strict JSON: what Foundation lets through is refused",
        arguments: [
            #"{"aps":1,"aps":{}}"#,  // duplicate keys: the last would win
            #"{"aps":{"alert":"a","alert":"b"}}"#,  // in a nested object too
            "\u{FEFF}{\"aps\":{}}",  // a byte-order mark
            #"{"aps":{"alert":"\ud800"}}"#,  // an unpaired surrogate
            #"{"aps":{}} x"#,  // text after the object
            #"{"aps":{"badge":01}}"#,  // a leading zero
            #"{"aps":{"badge":1.}}"#,
            "{\"aps\":{\"alert\":\"tab\there\"}}",  // a raw control character in a string
        ])
    func strict(json: String) {
        #expect {
            try Payload(json: json)
        } throws: { error in
            guard let error = error as? APNsError, case .payloadNotJSONObject = error else { return false }
            return true
        }
    }

    @Test func invalidUTF8IsRefusedAndEscapedDuplicatesAreSeen() {
        var bytes = Array(#"{"aps":{"alert":"x"}}"#.utf8)
        bytes[17] = 0xC3  // a lead byte without its continuation
        #expect(throws: APNsError.self) { try Payload(bytes: bytes) }
        #expect(throws: APNsError.self) { try Payload(bytes: Array(#"{"aps":{"alert":"x"}}"#.utf8) + [0xFF]) }
        // "\u0061ps" is "aps": the same key spelled twice.
        #expect(throws: APNsError.self) { try Payload(json: #"{"aps":{},"\u0061ps":{}}"#) }
    }

    /// Found by FuzzPayload's differential oracle (FUZZING.md): `{"":1E356}` is RFC 8259 JSON, but the number
    /// overflows a double and Foundation refuses the whole payload — as would a device. Minimized crash input.
    @Test(
        "numbers beyond a double's range are refused, as Foundation refuses them",
        arguments: [
            #"{"":1E356}"#, #"{"aps":{},"n":1e400}"#, #"{"aps":{},"n":-1e400}"#,
            #"{"aps":{},"n":[0.5E+99999999999999999999]}"#,
            #"{"aps":{},"n":"# + String(repeating: "9", count: 400) + "}", #"{"aps":{},"n":1.7976931348623159e308}"#,
        ])
    func outOfRangeNumbers(json: String) {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.read(Array(json.utf8)) }
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) == nil, "Foundation refuses it too")
    }

    @Test(
        "numbers a double holds are accepted, as Foundation accepts them",
        arguments: [
            #"{"aps":{},"n":1.7976931348623157e308}"#, #"{"aps":{},"n":-1.7976931348623157E+308}"#,
            #"{"aps":{},"n":1e-400}"#,
            #"{"aps":{},"n":"# + String(repeating: "9", count: 300) + "}", #"{"aps":{},"n":0e99999}"#,
            #"{"aps":{},"n":-0.0e-0}"#,
        ])
    func inRangeNumbers(json: String) throws {
        #expect(throws: Never.self) { try Payload(json: json) }
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
    }

    @Test func deepNestingIsRefusedBeforeTheStackRunsOut() {
        let deep =
            #"{"aps":{},"x":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(throws: JSONReader.Failure.self) { try JSONReader.read(Array(deep.utf8)) }
        let fine = #"{"aps":{"a":[[[{"b":[1,2.5e-3,-0,true,false,null,"\u00e9\ud83d\ude00"]}]]]}}"#
        #expect(throws: Never.self) { try Payload(json: fine) }
    }
}
