import APNs
import QueueModel
import QueueRules
import Testing

/// The order a device import writes in, and what it makes of a device given twice.
@Suite struct ImportOrderTests {
    static func token(_ n: Int) -> DeviceToken { try! DeviceToken(String(format: "%064x", n)) }

    @Test func sortsByTokenThenTopicAndMergesRepeats() {
        let registrations = [
            DeviceRegistration(token: Self.token(2), topic: "b", environment: .production, user: "u1"),
            DeviceRegistration(token: Self.token(1), topic: "b", environment: .production),
            DeviceRegistration(token: Self.token(2), topic: "a", environment: .production),
            DeviceRegistration(token: Self.token(2), topic: "b", environment: .development),
        ]
        let plan = ImportOrder.of(registrations)
        #expect(plan.order == [1, 2, 0])
        // The last environment given, and the last user given (the second gives none).
        #expect(plan.merged.keys.sorted() == [0])
        #expect(plan.merged[0]?.environment == .development)
        #expect(plan.merged[0]?.user == "u1")
    }
}
