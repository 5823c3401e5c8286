import APNs
import Foundation
import QueueModel
import TestSupport
import Testing

/// `GET /v1/status` and a campaign's `waiting`, from the views workers store with their heartbeats (written here
/// through the store, as a worker writes them), over a real socket.
@Suite struct APIStatusTests {
    @Test func statusAndCampaignsSayWhatTheLiveWorkersSee() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let tokens = (1...3).map { "\"\(Tokens.hex($0))\"" }.joined(separator: ",")
            let created = await api.call(
                "POST", "/v1/campaigns", key: api.admin,
                json: #"{"payload":{"aps":{}},"audience":{"tokens":[\#(tokens)]},"topic":"com.example.app"}"#)
            let id = try #require(try APITester.object(created)["id"] as? String, "\(created.text)")
            _ = try await api.store.expandDueCampaigns(now: Date(), pageSize: 100, maxPages: 1)

            // Without a worker nothing is known to wait.
            let before = try APITester.object(await api.call("GET", "/v1/campaigns/\(id)", key: api.reader))
            #expect(before["status"] as? String == "running" && before["waiting"] is NSNull, "\(before)")

            let since = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 30).rounded())
            let view = WorkerView(
                apns: [
                    "production": .init(
                        reachable: false, since: since, connections: ["open": 0, "connecting": 0, "backoff": 1])
                ],
                credentials: [.init(name: "default")], waiting: .init(reason: .apnsUnreachable, since: since))
            // Its heartbeat an hour ahead: on a loaded machine the tester's 2 s lease must not make it stale mid-test.
            let ahead = Date(timeIntervalSinceNow: 3600)
            let worker = try await api.store.registerWorker(ProcessIdentity(host: "sender.example", pid: 7), now: ahead)
            #expect(try await api.store.heartbeat(worker, view: view, now: ahead))
            #expect(try await api.store.workers().first?.view == view, "the view comes back as it was stored")

            let waiting = try APITester.object(await api.call("GET", "/v1/campaigns/\(id)", key: api.reader))
            let reason = try #require(waiting["waiting"] as? [String: Any], "\(waiting)")
            #expect(reason["reason"] as? String == "apns_unreachable" && reason["since"] is String, "\(waiting)")
            #expect(waiting["eta"] is NSNull, "no ETA while it waits: \(waiting)")

            #expect(await api.call("GET", "/v1/status", key: nil).status == 401)
            let answer = await api.call("GET", "/v1/status", key: api.reader)
            #expect(answer.status == 200, "\(answer.text)")
            let status = try APITester.object(answer)
            #expect((status["database"] as? [String: Any])?["status"] as? String == "ok", "\(status)")
            let workers = try #require(status["workers"] as? [[String: Any]], "\(status)")
            #expect(
                workers.count == 1 && workers[0]["id"] as? String == worker.description
                    && workers[0]["host"] as? String == "sender.example" && workers[0]["pid"] as? Int == 7
                    && workers[0]["heartbeatAge"] is Double && workers[0]["leases"] as? Int == 0
                    && workers[0]["state"] as? String == "waiting", "\(workers)")
            let production = try #require((status["apns"] as? [String: Any])?["production"] as? [String: Any])
            #expect(production["reachable"] as? Bool == false && production["since"] is String, "\(production)")
            #expect(
                production["connections"] as? [String: Int] == ["open": 0, "connecting": 0, "backoff": 1],
                "\(production)")
            #expect(
                (status["credentials"] as? [[String: Any]])?.map { $0["name"] as? String } == ["default"], "\(status)")
            let queue = try #require(status["queue"] as? [String: Any], "\(status)")
            #expect(queue["pending"] as? [String: Int] == ["single": 0, "bulk": 3], "\(queue)")
            #expect(status["pausedCampaigns"] as? [String] == [] && status["webhook"] is NSNull, "\(status)")
        }
    }
}
