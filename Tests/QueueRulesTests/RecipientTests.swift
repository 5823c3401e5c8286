import APNs
import QueueModel
import QueueRules
import Testing

/// What expansion gives a token: its registered device's environment, cancelled when that device is inactive.
@Suite struct RecipientTests {
    @Test func anUnregisteredTokenGoesToTheGivenEnvironmentOrProduction() {
        let recipient = Recipient(registered: nil, given: nil)
        #expect(recipient.environment == .production)
        #expect(recipient.status == .pending)
        #expect(recipient.reason == nil)
        #expect(Recipient(registered: nil, given: .development).environment == .development)
    }

    @Test func aRegisteredTokenGoesToItsDevicesEnvironment() {
        let recipient = Recipient(
            registered: Recipient.Registered(environment: .development, active: true), given: .production)
        #expect(recipient.environment == .development)
        #expect(recipient.status == .pending)
        #expect(recipient.reason == nil)
    }

    @Test func anInactiveDeviceIsCancelledNotSent() {
        let recipient = Recipient(
            registered: Recipient.Registered(environment: .production, active: false), given: nil)
        #expect(recipient.status == .cancelled)
        #expect(recipient.reason == .deviceInactive)
    }

    @Test func theSQLFormSaysTheSame() {
        #expect(Recipient.statusSQL(inactive: "x") == "CASE WHEN x THEN 'cancelled' ELSE 'pending' END")
        #expect(Recipient.reasonSQL(inactive: "x") == "CASE WHEN x THEN 'DeviceInactive' END")
    }

    @Test func aSkippedDeliveryMovesFromPendingToCancelled() {
        #expect(Recipient.skippedCounts(3) == CampaignCounters(pending: -3, cancelled: 3))
    }
}
