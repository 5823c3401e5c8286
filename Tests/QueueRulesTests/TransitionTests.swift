import Foundation
import QueueModel
import QueueRules
import Testing

@Suite struct TransitionTests {
    static let dispositions: [DeliveryResult.Disposition] = [
        .accepted, .rejected, .unregistered, .failed, .cancelled, .retry(at: Date(timeIntervalSince1970: 60)),
    ]

    @Test(arguments: DeliveryStatus.allCases) func everyStatusAgainstEveryDisposition(status: DeliveryStatus) {
        for disposition in Self.dispositions {
            let expected: Bool
            switch status {
            case .pending: expected = true
            case .cancelled:
                expected = [.accepted, .rejected, .unregistered, .failed].contains(disposition)
            case .accepted, .rejected, .unregistered, .failed: expected = false
            }
            #expect(status.accepts(disposition) == expected, "\(status) ← \(disposition)")
        }
    }
}
