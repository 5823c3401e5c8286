import APNs
import Foundation
import Testing

/// What docs/APNS.md's response table tells a provider to do, written out independently of `Outcome`.
enum Action: String, Sendable {
    case accept, deactivate, reject, refresh, configuration, retryLater
}

/// docs/APNS.md, "Responses", row by row: status, reasons, what a provider does.
let appleTable: [(status: Int, reasons: [String], action: Action)] = [
    (400, ["BadDeviceToken", "DeviceTokenNotForTopic"], .deactivate),
    (
        400,
        [
            "BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic", "DuplicateHeaders",
            "InvalidPushType", "MissingDeviceToken", "MissingTopic", "PayloadEmpty", "TopicDisallowed", "IdleTimeout",
        ], .reject
    ),
    (403, ["ExpiredProviderToken"], .refresh),
    (
        403,
        [
            "InvalidProviderToken", "MissingProviderToken", "BadCertificate", "BadCertificateEnvironment", "Forbidden",
            "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadEnvironmentKeyInToken",
        ], .configuration
    ),
    (404, ["BadPath"], .reject),
    (405, ["MethodNotAllowed"], .reject),
    (410, ["Unregistered", "ExpiredToken"], .deactivate),
    (413, ["PayloadTooLarge"], .reject),
    (429, ["TooManyRequests"], .retryLater),
    (429, ["TooManyProviderTokenUpdates"], .retryLater),
    (500, ["InternalServerError", "ServiceUnavailable", "Shutdown"], .retryLater),
    (503, ["InternalServerError", "ServiceUnavailable", "Shutdown"], .retryLater),
]

struct TableRow: Sendable, CustomTestStringConvertible {
    let status: Int
    let reason: String
    let action: Action
    var testDescription: String { "\(status) \(reason) → \(action)" }
}

let appleRows: [TableRow] = appleTable.flatMap { row in
    row.reasons.map { TableRow(status: row.status, reason: $0, action: row.action) }
}

@Suite("Reason and Outcome")
struct OutcomeTests {
    static let timestamp: Int64 = 1_700_000_000_000

    /// The Outcome a row must produce.
    private func expected(_ row: TableRow, timestamp: Int64?) -> Outcome {
        let reason = Reason(rawValue: row.reason)
        switch row.action {
        case .accept: return .accepted
        case .deactivate: return row.status == 410 ? .unregistered(reason, since: timestamp) : .badDeviceToken(reason)
        case .reject: return .reject(reason)
        case .refresh: return .refreshProviderToken
        case .configuration: return .configurationError(reason)
        case .retryLater: return .retryLater(reason)
        }
    }

    @Test("every row of Apple's table maps to its outcome", arguments: appleRows)
    func table(row: TableRow) {
        let reason = Reason(rawValue: row.reason)
        let timestamp: Int64? = row.status == 410 ? Self.timestamp : nil
        let outcome = Outcome(status: row.status, reason: reason, timestamp: timestamp)
        #expect(outcome == expected(row, timestamp: timestamp))
    }

    @Test("every row parses from Apple's JSON body to the same outcome", arguments: appleRows)
    func fromBody(row: TableRow) {
        let body =
            row.status == 410
            ? #"{"reason":"\#(row.reason)","timestamp":\#(Self.timestamp)}"#
            : #"{"reason":"\#(row.reason)"}"#
        let response = ErrorResponse(status: row.status, body: Array(body.utf8))
        #expect(response.reason?.rawValue == row.reason)
        #expect(Outcome(response: response) == expected(row, timestamp: row.status == 410 ? Self.timestamp : nil))
    }

    @Test("410 without a timestamp deactivates with none")
    func unregisteredWithoutTimestamp() {
        #expect(Outcome(status: 410, reason: .unregistered) == .unregistered(.unregistered, since: nil))
    }

    @Test("named reasons spell Apple's strings")
    func names() {
        let named: [(Reason, String)] = [
            (.badDeviceToken, "BadDeviceToken"), (.deviceTokenNotForTopic, "DeviceTokenNotForTopic"),
            (.badTopic, "BadTopic"),
            (.expiredProviderToken, "ExpiredProviderToken"), (.invalidProviderToken, "InvalidProviderToken"),
            (.missingProviderToken, "MissingProviderToken"),
            (.badEnvironmentKeyIdInToken, "BadEnvironmentKeyIdInToken"),
            (.badEnvironmentKeyInToken, "BadEnvironmentKeyInToken"), (.unregistered, "Unregistered"),
            (.expiredToken, "ExpiredToken"), (.payloadTooLarge, "PayloadTooLarge"),
            (.tooManyRequests, "TooManyRequests"),
            (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates"),
            (.internalServerError, "InternalServerError"),
            (.serviceUnavailable, "ServiceUnavailable"), (.shutdown, "Shutdown"), (.badPath, "BadPath"),
            (.methodNotAllowed, "MethodNotAllowed"), (.idleTimeout, "IdleTimeout"),
            (.unrelatedKeyIdInToken, "UnrelatedKeyIdInToken"),
        ]
        for (reason, text) in named { #expect(reason.rawValue == text) }
    }

    @Test("200 is accepted, whatever the body says")
    func accepted() {
        #expect(Outcome(status: 200, reason: nil) == .accepted)
        #expect(Outcome(response: ErrorResponse(status: 200, body: [])) == .accepted)
    }

    @Test(
        "an unknown reason keeps its raw value",
        arguments: [(400, "BrandNewReason"), (403, "SomethingElse"), (429, "SlowDown")])
    func unknownReason(status: Int, text: String) {
        let reason = Reason(rawValue: text)
        #expect(!reason.isDocumented)
        let outcome = Outcome(status: status, reason: reason)
        switch outcome {
        case .reject(let kept), .configurationError(let kept), .retryLater(let kept):
            #expect(kept.rawValue == text)
        default:
            Issue.record("unexpected \(outcome)")
        }
        if status == 400 { #expect(outcome == .reject(Reason(rawValue: text))) }
    }

    @Test(
        "a missing reason still classifies by status",
        arguments: [
            (400, Action.reject), (404, .reject), (413, .reject), (429, .retryLater), (500, .retryLater),
            (503, .retryLater),
        ])
    func noReason(status: Int, action: Action) {
        let outcome = Outcome(status: status, reason: nil)
        switch (outcome, action) {
        case (.reject(let reason), .reject), (.retryLater(let reason), .retryLater):
            #expect(!reason.rawValue.isEmpty)
        default:
            Issue.record("\(status) without reason gave \(outcome)")
        }
    }

    @Test("Reason.documented is exactly the reasons in docs/APNS.md, each with a status Apple gives it")
    func documented() {
        let fromDoc = Set(appleRows.map(\.reason))
        let listed = Set(Reason.documented.map(\.reason.rawValue))
        #expect(listed == fromDoc)
        for entry in Reason.documented {
            let statuses = Set(appleRows.filter { $0.reason == entry.reason.rawValue }.map(\.status))
            #expect(statuses.contains(entry.status), "\(entry.reason) listed with \(entry.status)")
            #expect(entry.reason.isDocumented)
        }
    }
}

@Suite("ErrorResponse")
struct ErrorResponseTests {
    @Test("410 body with reason and timestamp")
    func unregistered() {
        let response = ErrorResponse(
            status: 410, body: Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8))
        #expect(response.status == 410)
        #expect(response.reason == .unregistered)
        #expect(response.timestamp == 1_700_000_000_000)
        #expect(Outcome(response: response) == .unregistered(.unregistered, since: 1_700_000_000_000))
    }

    @Test("a body without timestamp")
    func withoutTimestamp() {
        let response = ErrorResponse(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        #expect(response.reason == .badDeviceToken)
        #expect(response.timestamp == nil)
    }

    @Test(
        "garbage, empty and non-object bodies leave reason and timestamp empty",
        arguments: [
            "", "garbage", "<html>502 Bad Gateway</html>", "[]", #"["reason"]"#, "{", #"{"reason":42}"#,
        ])
    func garbage(body: String) {
        let response = ErrorResponse(status: 502, body: Array(body.utf8))
        #expect(response.status == 502)
        #expect(response.reason == nil)
        #expect(response.timestamp == nil)
    }

    @Test(
        "the JSON body written back has Apple's shape",
        arguments: [
            ErrorResponse(status: 410, reason: .unregistered, timestamp: 1_700_000_000_123),
            ErrorResponse(status: 400, reason: .badTopic),
        ])
    func jsonBody(response: ErrorResponse) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.jsonBody)) as? [String: Any])
        #expect(object["reason"] as? String == response.reason?.rawValue)
        #expect((object["timestamp"] as? NSNumber)?.int64Value == response.timestamp)
        #expect(Set(object.keys) == (response.timestamp == nil ? ["reason"] : ["reason", "timestamp"]))
        #expect(ErrorResponse(status: response.status, body: response.jsonBody) == response)
    }

    @Test("no reason, no body")
    func emptyBody() {
        #expect(ErrorResponse(status: 200, reason: nil).jsonBody.isEmpty)
    }
}
