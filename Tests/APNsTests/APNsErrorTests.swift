import APNs
import Testing

/// Each error as the public API throws it, with the text its message must quote.
private let thrown: [(label: String, make: @Sendable () throws -> Void, mentions: [String])] = [
    ("odd token", { _ = try DeviceToken("abc") }, ["3"]),
    ("non-hex token", { _ = try DeviceToken("zz" + String(repeating: "0", count: 62)) }, ["1"]),
    ("push type", { _ = try PushType.parse("pushy") }, ["pushy"]),
    ("priority", { _ = try Priority.parse("7") }, ["'7'"]),
    ("background priority", { try Priority.immediate.validate(for: .background) }, ["10", "background"]),
    ("expiration", { _ = try Expiration.parse("tomorrow") }, ["tomorrow"]),
    ("apns-id", { _ = try NotificationID("not-a-uuid") }, ["not-a-uuid"]),
    ("collapse id", { _ = try CollapseID(String(repeating: "é", count: 40)) }, ["80", "64"]),
    ("empty collapse id", { _ = try CollapseID("") }, ["collapse"]),
    ("payload size", { _ = try Payload(json: String(repeating: " ", count: 4097)) }, ["4097", "4096"]),
    ("empty payload", { _ = try Payload(bytes: []) }, ["empty"]),
    ("payload JSON", { _ = try Payload(json: "[]") }, ["JSON"]),
    ("missing aps", { _ = try Payload(json: "{}") }, ["aps"]),
    ("environment", { _ = try Environment.parse("staging") }, ["staging"]),
    (
        "topic",
        {
            _ = try APNs.Notification(
                token: DeviceToken("00"), topic: "com.bad topic", payload: Payload(json: #"{"aps":{}}"#))
        }, ["com.bad topic"]
    ),
]

struct ThrownCase: Sendable, CustomTestStringConvertible {
    let index: Int
    var testDescription: String { thrown[index].label }
}

@Suite("APNsError")
struct APNsErrorTests {
    @Test("messages are one line and mention the offending value", arguments: thrown.indices.map(ThrownCase.init))
    func message(testCase: ThrownCase) {
        let entry = thrown[testCase.index]
        do {
            try entry.make()
            Issue.record("\(entry.label) did not throw")
        } catch {
            let text = "\(error)"
            #expect(!text.contains("\n"), "\(text)")
            #expect(!text.contains("\r"), "\(text)")
            #expect(!text.isEmpty)
            for fragment in entry.mentions { #expect(text.contains(fragment), "'\(text)' should mention \(fragment)") }
        }
    }
}
