import APNs
import Foundation
import Intake
import QueueModel
import Testing

/// Ids are JSON strings in every shape (`"42"`), the one representation for the CLI's `--json` and the HTTP API.
@Suite struct JSONShapesTests {
    static let time = Date(timeIntervalSince1970: 1_796_115_600)

    @Test func aDeliveryCarriesItsIdAndItsCampaignAsStrings() throws {
        let entry = LogEntry(
            id: DeliveryID(rawValue: 7), campaignID: CampaignID(42),
            target: .device(try DeviceToken(String(repeating: "ab", count: 32))),
            environment: .production, status: .accepted, httpStatus: 200, reason: nil, apnsID: nil, attempts: 1,
            nextAttemptAt: nil, createdAt: Self.time, updatedAt: Self.time)
        let text = entry.json.description
        #expect(text.contains(#""id":"7""#) && text.contains(#""campaign":"42""#), "\(text)")
    }

    @Test func aWorkerCarriesItsIdAsAString() {
        let worker = WorkerRecord(
            id: WorkerID(rawValue: 3), process: ProcessIdentity(host: "h", pid: 99), startedAt: Self.time,
            heartbeatAt: Self.time, leases: 0)
        let text = worker.json(now: Self.time, lease: .seconds(30)).description
        #expect(text.contains(#""id":"3""#) && text.contains(#""pid":99"#), "\(text)")
    }
}
