import Foundation
import ProviderAuth
import Store
import TestSupport
import Testing

/// API keys over a real socket: 401 without a live key, 403 without the route's scope, a revoked key refused within
/// about a second, and secrets never echoed. (That `apnsd serve` never logs one is ServeTests'.)
@Suite struct APIAuthTests {
    @Test func keysAndScopes() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let notification = APITester.notification(Tokens.hex(1))
            let campaign = #"{"payload":{"aps":{}},"audience":{"all":true}}"#
            let before = try await api.written()

            for authorization in [
                nil, "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer not-a-secret", "bearer " + api.backend + "x",
                "Bearer " + String(api.backend.reversed()), api.backend,
            ] {
                let refused = await api.call(
                    "POST", "/v1/notifications", key: nil, json: notification,
                    headers: authorization.map { ["Authorization: \($0)"] } ?? [])
                #expect(
                    refused.status == 401 && refused.headers["www-authenticate"] == "Bearer",
                    "\(authorization ?? "none"): \(refused.status)")
                let error = try APITester.error(refused)
                #expect(error["code"] as? String == "unauthorized")
                #expect(!refused.text.contains(api.backend), "the secret is never echoed")
                #expect(
                    await api.call(
                        "GET", "/v1/campaigns", key: nil, headers: authorization.map { ["Authorization: \($0)"] } ?? []
                    ).status == 401)
            }
            // A well-formed secret that was never created.
            let stranger = try APIKeySecret.generate()
            #expect(await api.call("GET", "/v1/deliveries", key: stranger).status == 401)

            // 403: each key lacks some scope; the body names the scope and never the secret.
            let forbidden: [(String, String, String, String?)] = [
                (api.reader, "POST", "/v1/notifications", notification),
                (api.reader, "POST", "/v1/notifications/batch", #"{"notifications":[\#(notification)]}"#),
                (api.reader, "DELETE", "/v1/notifications/1", nil),
                (api.reader, "POST", "/v1/campaigns", campaign),
                (api.sender, "GET", "/v1/notifications/1", nil),
                (api.sender, "GET", "/v1/deliveries", nil),
                (api.sender, "GET", "/v1/campaigns", nil),
                (api.backend, "POST", "/v1/campaigns", campaign),
                (api.backend, "POST", "/v1/campaigns/1/cancel", nil),
                (api.backend, "POST", "/v1/campaigns/1/retry", nil),
                (api.admin, "POST", "/v1/notifications", notification),
            ]
            for (key, method, path, body) in forbidden {
                let refused = await api.call(method, path, key: key, json: body)
                #expect(refused.status == 403, "\(method) \(path): \(refused.status) \(refused.text)")
                #expect(try APITester.error(refused)["code"] as? String == "forbidden" && !refused.text.contains(key))
            }
            #expect(try await api.written() == before, "a refused request wrote something")

            // The scopes that do allow: send and read (backend) enqueues and reads; admin creates, cancels and retries.
            let sent = await api.call("POST", "/v1/notifications", key: api.backend, json: notification)
            #expect(sent.status == 202)
            let created = await api.call("POST", "/v1/campaigns", key: api.admin, json: campaign)
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(try APITester.object(created)["id"] as? String)
            // A campaign is not a notification: a send key cannot cancel one through DELETE /v1/notifications/{id}.
            let bypass = await api.call("DELETE", "/v1/notifications/\(id)", key: api.backend)
            #expect(bypass.status == 404, "\(bypass.status) \(bypass.text)")
            #expect(await api.call("POST", "/v1/campaigns/\(id)/cancel", key: api.admin).status == 200)
            #expect(await api.call("GET", "/v1/campaigns/\(id)", key: api.reader).status == 200)
            #expect(await api.call("GET", "/healthz", key: nil).status == 200, "health needs no key")

            // Revocation through another connection (as `apnsd api-key revoke` does) takes effect within about a second
            // (the key is remembered for one).
            #expect(await api.call("GET", "/v1/deliveries", key: api.reader).status == 200)
            let other = try await Store.open(at: api.database)
            let revoked = try await other.revokeAPIKey(name: "reader")
            await other.close()
            try #require(revoked)
            #expect(
                await Poll.until(15, every: 0.1) {
                    await api.call("GET", "/v1/deliveries", key: api.reader).status == 401
                },
                "the revoked key still works")
            #expect(
                await api.call("GET", "/v1/deliveries", key: api.backend).status == 200, "other keys are unaffected")

            let metrics = await api.call("GET", "/metrics", key: nil)
            #expect(metrics.status == 200 && !metrics.text.contains(api.backend))
        }
    }
}
