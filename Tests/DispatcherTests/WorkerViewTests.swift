import APNs
import Foundation
import QueueModel
import Testing

@testable import Dispatcher

/// Why a worker waits (`Worker.waiting`) and why a campaign does (`CampaignWaiting`), as values, without a store.
@Suite struct WorkerViewTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func campaign(environment: Environment?, pending: Int = 5) throws -> Campaign {
        Campaign(
            id: CampaignID(1), kind: .bulk, status: .running,
            audience: AudienceSummary(kind: .all, environment: environment, size: pending),
            content: NotificationContent(
                trusted: "com.example.app", pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil,
                payload: try Payload(json: #"{"aps":{}}"#)),
            scheduledAt: t0, createdAt: t0, startedAt: t0, finishedAt: nil, isExpanded: true,
            counters: CampaignCounters(total: pending, pending: pending))
    }

    static func worker(_ view: WorkerView?, heartbeat: Date = t0) -> WorkerRecord {
        WorkerRecord(
            id: WorkerID(1), process: ProcessIdentity(host: "h", pid: 1), startedAt: t0, heartbeatAt: heartbeat,
            leases: 0, view: view)
    }

    @Test func aWorkerWaitsOnlyWhenNothingCanGoOut() {
        let down = [Environment.production: Self.t0]
        let ok = [WorkerView.CredentialView(name: "a")]
        #expect(Worker.waiting(unreachable: [:], used: ["production"], credentials: ok, fault: nil) == nil)
        #expect(
            Worker.waiting(unreachable: down, used: ["production"], credentials: ok, fault: nil)
                == .init(reason: .apnsUnreachable, since: Self.t0))
        #expect(
            Worker.waiting(unreachable: down, used: ["production", "development"], credentials: ok, fault: nil) == nil,
            "development still sends")
        let refused = [WorkerView.CredentialView(name: "a", paused: "403 InvalidProviderToken", pausedSince: Self.t0)]
        #expect(
            Worker.waiting(unreachable: [:], used: [], credentials: refused, fault: nil)?.reason == .credentialRefused)
        #expect(
            Worker.waiting(unreachable: down, used: ["production"], credentials: ok, fault: Self.t0)?.reason
                == .storageFault, "a storage fault first: nothing is written")
    }

    @Test func aCampaignWaitsWhenEveryLiveWorkerWaitsForIt() throws {
        let since = Self.t0.addingTimeInterval(-60)
        let down = WorkerView(
            apns: ["production": .init(reachable: false, since: since), "development": .init(reachable: true)])
        let now = Self.t0
        let production = try Self.campaign(environment: .production)
        #expect(
            CampaignWaiting.reason(
                for: production, workers: [Self.worker(down)], credential: nil, now: now, lease: .seconds(30))
                == .init(reason: .apnsUnreachable, since: since), "its environment is down")
        #expect(
            CampaignWaiting.reason(
                for: try Self.campaign(environment: .development), workers: [Self.worker(down)], credential: nil,
                now: now, lease: .seconds(30)) == nil)
        #expect(
            CampaignWaiting.reason(
                for: production, workers: [Self.worker(down), Self.worker(WorkerView())], credential: nil, now: now,
                lease: .seconds(30)) == nil, "another live worker can send it")
        #expect(
            CampaignWaiting.reason(
                for: production, workers: [Self.worker(down, heartbeat: now.addingTimeInterval(-60))],
                credential: nil, now: now, lease: .seconds(30)) == nil, "a stale worker's view does not count")
        #expect(
            CampaignWaiting.reason(
                for: try Self.campaign(environment: .production, pending: 0), workers: [Self.worker(down)],
                credential: nil, now: now, lease: .seconds(30)) == nil, "nothing pending: nothing waits")
        let refused = WorkerView(credentials: [.init(name: "shop", paused: "403 BadCertificate", pausedSince: since)])
        #expect(
            CampaignWaiting.reason(
                for: production, workers: [Self.worker(refused)], credential: "shop", now: now, lease: .seconds(30))
                == .init(reason: .credentialRefused, since: since))
        #expect(
            CampaignWaiting.reason(
                for: production, workers: [Self.worker(refused)], credential: "rides", now: now, lease: .seconds(30))
                == nil, "its own credential sends")
        #expect(WorkerView(json: refused.json) == refused && WorkerView(json: "{") == nil)
    }
}
