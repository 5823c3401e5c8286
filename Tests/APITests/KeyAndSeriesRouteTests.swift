import Foundation
import TestSupport
import Testing

/// `GET /v1/key` (any key says who it is) and `GET /v1/stats/series` (outcomes per step, of everything or of one
/// bulk campaign, as the worker wrote them), over a real socket.
@Suite struct KeyAndSeriesRouteTests {
    @Test func everyKeySaysItsNameAndScopesAndNoKeyIsRefused() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            for (secret, name, scopes) in [
                (api.backend, "backend", ["send", "read"]), (api.reader, "reader", ["read"]),
                (api.sender, "sender", ["send"]), (api.admin, "ops", ["read", "admin"]),
            ] {
                let answer = await api.call("GET", "/v1/key", key: secret)
                #expect(answer.status == 200, "\(name): \(answer.text)")
                let key = try APITester.object(answer)
                #expect(key["name"] as? String == name && key["scopes"] as? [String] == scopes, "\(key)")
                #expect(Set(key.keys) == ["name", "scopes"] && !answer.text.contains(secret))
            }
            let refused = await api.call("GET", "/v1/key", key: nil)
            #expect(refused.status == 401 && refused.errorCode == "unauthorized")
            #expect(await api.call("GET", "/v1/key", key: String(api.reader.reversed())).status == 401)
        }
    }

    @Test func aSeriesIsValidatedAndCountsWhatTheWorkerSent() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let empty = try APITester.object(await api.call("GET", "/v1/stats/series", key: api.reader))
            #expect(empty["step"] as? Int == 60 && empty["campaign"] is NSNull)
            let points = try #require(empty["points"] as? [[String: Any]])
            // An hour of minutes, from the minute an hour ago to this one.
            #expect((60...62).contains(points.count), "\(points.count)")
            #expect(points.allSatisfy { $0["requests"] as? Int == 0 && ($0["outcomes"] as? [String: Int]) == [:] })

            for (query, field) in [
                ("step=30s", "step"), ("step=90s", "step"), ("step=1", "step"), ("step=x", "step"),
                ("since=2d&step=60s", "step"), ("since=2099-01-01T00:00:00Z", "since"), ("campaign=x", "campaign"),
                ("limit=3", "limit"),
            ] {
                let refused = await api.call("GET", "/v1/stats/series?\(query)", key: api.reader)
                #expect(
                    refused.status == 400 && refused.errorField == field, "\(query): \(refused.status) \(refused.text)")
            }
            #expect(await api.call("GET", "/v1/stats/series?campaign=999", key: api.reader).status == 404)
            #expect(await api.call("GET", "/v1/stats/series", key: api.sender).status == 403)
            let week = try APITester.object(await api.call("GET", "/v1/stats/series?since=7d&step=1h", key: api.reader))
            #expect(week["step"] as? Int == 3600 && (168...170).contains((week["points"] as? [Any])?.count ?? 0))

            // A bulk campaign to 5 devices, sent by the worker; then a single send.
            for n in 1...5 {
                #expect(
                    await api.call("PUT", "/v1/devices/\(Tokens.hex(n))", key: api.backend, json: "{}").status == 201)
            }
            let sending = try APITester.Sending(api)
            let created = await api.call(
                "POST", "/v1/campaigns", key: api.admin,
                json: #"{"payload":{"aps":{"alert":"hi"}},"audience":{"all":true}}"#)
            #expect(created.status == 202 || created.status == 201, "\(created.text)")
            let id = try #require(try APITester.object(created)["id"] as? String)
            let single = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(1)))
            #expect(single.status == 202, "\(single.text)")
            let singleID = try #require(try APITester.object(single)["id"] as? String)
            for _ in 0..<600 {
                let campaign = try APITester.object(await api.call("GET", "/v1/campaigns/\(id)", key: api.reader))
                let send = try APITester.object(await api.call("GET", "/v1/notifications/\(singleID)", key: api.reader))
                if campaign["status"] as? String == "completed" && send["status"] as? String == "completed" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            await sending.stop()

            func accepted(_ query: String) async throws -> (accepted: Int, requests: Int) {
                let series = try APITester.object(await api.call("GET", "/v1/stats/series?\(query)", key: api.reader))
                let points = try #require(series["points"] as? [[String: Any]])
                return (
                    points.map { ($0["outcomes"] as? [String: Int])?["accepted"] ?? 0 }.reduce(0, +),
                    points.map { $0["requests"] as? Int ?? 0 }.reduce(0, +)
                )
            }
            let everything = try await accepted("since=10m")
            #expect(everything.accepted == 6 && everything.requests == 6, "\(everything)")
            let campaign = try await accepted("since=10m&step=5m&campaign=\(id)")
            #expect(campaign.accepted == 5 && campaign.requests == 5, "\(campaign)")
            let reasons = try APITester.object(
                await api.call("GET", "/v1/stats/series?since=10m&campaign=\(id)", key: api.reader))["reasons"]
            #expect(reasons as? [String: [String: Int]] == ["accepted": ["none": 5]], "\(String(describing: reasons))")
            let alone = try await accepted("since=10m&campaign=\(singleID)")
            #expect(alone.accepted == 0, "a single send keeps no series")
        }
    }
}
