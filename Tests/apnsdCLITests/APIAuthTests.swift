import Foundation
import TestSupport
import Testing

extension APIServe {
    /// API keys on a real `apnsd serve`: 401 without a live key, 403 without the route's scope, a revoked key refused
    /// within about a second, and secrets never echoed.
    @Suite struct APIAuthTests {
        @Test func keysAndScopes() throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let api = try APIHarness(cli: cli)
            defer { api.stop() }
            let notification = APIHarness.notification(CLI.token(1))
            let campaign = #"{"payload":{"aps":{}},"audience":{"all":true}}"#
            let before = try api.written()

            for authorization in [
                nil, "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer not-a-secret", "bearer " + api.backend + "x",
                "Bearer " + String(api.backend.reversed()), api.backend,
            ] {
                let refused = try api.call(
                    "POST", "/v1/notifications", key: nil, json: notification,
                    headers: authorization.map { ["Authorization: \($0)"] } ?? [])
                #expect(
                    refused.status == 401 && refused.headers["www-authenticate"] == "Bearer",
                    "\(authorization ?? "none"): \(refused.status)")
                let error = try APIHarness.error(refused)
                #expect(error["code"] as? String == "unauthorized")
                #expect(!refused.body.contains(api.backend), "the secret is never echoed")
                #expect(
                    try api.call(
                        "GET", "/v1/campaigns", key: nil, headers: authorization.map { ["Authorization: \($0)"] } ?? []
                    ).status == 401)
            }
            // A well-formed secret that was never created.
            let other = try CLI()
            defer { other.cleanUp() }
            try #require(other.run("init").status == 0)
            let stranger = try APIHarness.createKey(other, "stranger", [])
            #expect(try api.call("GET", "/v1/deliveries", key: stranger).status == 401)

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
                let refused = try api.call(method, path, key: key, json: body)
                #expect(refused.status == 403, "\(method) \(path): \(refused.status) \(refused.body)")
                #expect(try APIHarness.error(refused)["code"] as? String == "forbidden" && !refused.body.contains(key))
            }
            #expect(try api.written() == before, "a refused request wrote something")

            // The scopes that do allow: send and read (backend) enqueues and reads; admin creates, cancels and retries.
            let sent = try api.call("POST", "/v1/notifications", key: api.backend, json: notification)
            #expect(sent.status == 202)
            let created = try api.call("POST", "/v1/campaigns", key: api.admin, json: campaign)
            #expect(created.status == 201, "\(created.body)")
            let id = try #require(try APIHarness.object(created)["id"] as? String)
            // A campaign is not a notification: a send key cannot cancel one through DELETE /v1/notifications/{id}.
            let bypass = try api.call("DELETE", "/v1/notifications/\(id)", key: api.backend)
            #expect(bypass.status == 404, "\(bypass.status) \(bypass.body)")
            #expect(try api.call("POST", "/v1/campaigns/\(id)/cancel", key: api.admin).status == 200)
            #expect(try api.call("GET", "/v1/campaigns/\(id)", key: api.reader).status == 200)
            #expect(try api.call("GET", "/healthz", key: nil).status == 200, "health needs no key")

            // Revocation from another process takes effect within about a second (the key is remembered for one).
            #expect(try api.call("GET", "/v1/deliveries", key: api.reader).status == 200)
            try #require(api.cli.run("api-key", "revoke", "reader").status == 0)
            #expect(
                Fleet.waitUntil(15, every: 0.1) {
                    (try? api.call("GET", "/v1/deliveries", key: api.reader).status) == 401
                },
                "the revoked key still works")
            #expect(try api.call("GET", "/v1/deliveries", key: api.backend).status == 200, "other keys are unaffected")

            let logged = api.serve.log
            for secret in [api.backend, api.reader, api.sender, api.admin] {
                #expect(!logged.contains(secret), "a secret in the server's log")
            }
            let metrics = try api.call("GET", "/metrics", key: nil)
            #expect(metrics.status == 200 && !metrics.body.contains(api.backend))
        }
    }
}
