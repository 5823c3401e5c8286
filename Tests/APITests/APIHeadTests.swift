import Foundation
import TestSupport
import Testing

/// The API behind the HTTP server's head checks, over a real socket: refusals in the API's JSON error format, the
/// database unchanged by a refused request, canonical ids, and the long-poll slots.
@Suite struct APIHeadTests {
    /// The `error` object of a raw reply's JSON body.
    static func error(_ reply: String) -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: Data(RawHTTP.body(reply).utf8)) as? [String: Any]
        return object?["error"] as? [String: Any] ?? [:]
    }

    static func status(_ reply: String) -> String { String(RawHTTP.statusLines(reply).first ?? "none") }

    @Test func aNulOrAnEncodedSlashInATokenDeactivatesNothing() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let port = api.server.address.port
            let token = Tokens.hex(1)
            #expect(
                await api.call("PUT", "/v1/devices/\(token)", key: api.backend, json: #"{"user":"alice"}"#).status
                    == 201)
            for target in ["/v1/devices/\(token)%00zz", "/v1/devices/\(token)%2Fzz", "/v1/devices/\(token)%0A"] {
                let refused = await api.call("DELETE", target, key: api.backend)
                #expect(refused.status == 400 && refused.errorCode == "invalid_request", "\(target): \(refused.text)")
            }
            let raw = await RawHTTP.exchange(
                port: port,
                Array("DELETE /v1/devices/\(token)".utf8) + [0]
                    + Array("zz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.backend)\r\n\r\n".utf8))
            #expect(Self.status(raw.reply).hasPrefix("HTTP/1.1 400"), "\(raw.reply)")
            #expect(Self.error(raw.reply)["code"] as? String == "invalid_request", "\(raw.reply)")
            let device = try APITester.object(await api.call("GET", "/v1/devices/\(token)", key: api.reader))
            #expect(device["active"] as? Bool == true, "\(device)")
            #expect(try await api.query("SELECT count(*) FROM devices WHERE active = 1") == ["1"])
        }
    }

    @Test func idsInPathsAreCanonicalDecimal() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let sent = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(1)))
            #expect(sent.status == 202, "\(sent.text)")
            let id = try #require(try APITester.object(sent)["id"] as? String)
            #expect(await api.call("GET", "/v1/notifications/\(id)", key: api.reader).status == 200)
            for spelling in ["+\(id)", "0\(id)", "000\(id)", "\(id).0", " \(id)"] {
                let encoded = spelling.replacingOccurrences(of: " ", with: "%20")
                let refused = await api.call("GET", "/v1/notifications/\(encoded)", key: api.reader)
                #expect(refused.status == 400 && refused.errorField == "id", "\(spelling): \(refused.text)")
                let cancel = await api.call("DELETE", "/v1/notifications/\(encoded)", key: api.backend)
                #expect(cancel.status == 400, "\(spelling): \(cancel.text)")
                let campaign = await api.call("POST", "/v1/campaigns/\(encoded)/cancel", key: api.admin)
                #expect(campaign.status == 400, "\(spelling): \(campaign.text)")
            }
            for spelling in ["+1", "0001", "-1"] {
                let channel = await api.call("GET", "/v1/channels/\(spelling)", key: api.reader)
                #expect(channel.status == 400 && channel.errorField == "id", "\(spelling): \(channel.text)")
            }
            #expect(try await api.query("SELECT status FROM campaigns") != ["cancelled"])
        }
    }

    @Test func theServersRefusalsAreTheAPIsJSONErrors() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let port = api.server.address.port
            let before = try await api.written()
            let auth = "Authorization: Bearer \(api.backend)\r\n"
            let json = APITester.notification(Tokens.hex(1))
            let post = "POST /v1/notifications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            let cases: [(String, String, String)] = [
                (
                    "GET /v1/deliveries?" + Array(repeating: "limit=5", count: 101).joined(separator: "&")
                        + " HTTP/1.1\r\nHost: x\r\n\(auth)\r\n", "400", "invalid_request"
                ),
                (
                    "GET /v1/" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n", "414",
                    "uri_too_long"
                ),
                (
                    "GET /v1/deliveries HTTP/1.1\r\nHost: x\r\n\(auth)X-Big: \(String(repeating: "b", count: 17_000))\r\n\r\n",
                    "431", "headers_too_large"
                ),
                ("\(post)\(auth)\(auth)Content-Length: \(json.utf8.count)\r\n\r\n\(json)", "400", "invalid_request"),
                (
                    "\(post)\(auth)Idempotency-Key: a\r\nIdempotency-Key: b\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)",
                    "400", "invalid_request"
                ),
                (
                    "\(post)\(auth)Content-Length: \(json.utf8.count)\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)",
                    "400", "invalid_request"
                ),
                (
                    "\(post)\(auth)Content-Length: \(json.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + String(json.utf8.count, radix: 16) + "\r\n\(json)\r\n0\r\n\r\n", "400", "invalid_request"
                ),
            ]
            for (request, status, code) in cases {
                let answer = await RawHTTP.exchange(port: port, request)
                let line = Self.status(answer.reply)
                #expect(line.hasPrefix("HTTP/1.1 \(status)"), "\(request.prefix(120)): \(answer.reply.prefix(300))")
                #expect(Self.error(answer.reply)["code"] as? String == code, "\(answer.reply.prefix(300))")
                #expect(
                    answer.reply.lowercased().contains("content-type: application/json"), "\(answer.reply.prefix(300))")
                #expect(RawHTTP.statusLines(answer.reply).count == 1 && answer.closed, "\(answer.reply.prefix(300))")
            }
            // A chunked body over the route's 1 MiB: 413 once it has been sent, then the connection closed.
            let payload =
                #"{"token":"\#(Tokens.hex(2))","payload":{"aps":{"alert":""#
                + String(repeating: "x", count: 1_200_000) + #""}}}"#
            let chunk = String(payload.utf8.count, radix: 16)
            let over = await RawHTTP.exchange(
                port: port, "\(post)\(auth)Transfer-Encoding: chunked\r\n\r\n\(chunk)\r\n\(payload)\r\n0\r\n\r\n")
            #expect(Self.status(over.reply).hasPrefix("HTTP/1.1 413") && over.closed, "\(over.reply.prefix(300))")
            #expect(Self.error(over.reply)["code"] as? String == "body_too_large", "\(over.reply.prefix(300))")
            #expect(try await api.written() == before, "a refused request wrote nothing")
            #expect(await api.call("GET", "/healthz", key: nil).status == 200)
        }
    }

    /// Two slots in all and one per key: a long poll beyond them is answered at once, with Retry-After; a slot is
    /// free again once its long poll has answered.
    @Test func longPollsBeyondTheirSlotsAreAnsweredAtOnce() async throws {
        let api = try await APITester(longPolls: (total: 2, perKey: 1))
        try await withCleanup(await api.close()) {
            let other = try await api.key("other", [.read])
            // The long polls' clients wait longer than the server's 30 s: on a loaded machine the steps below may outlast it.
            let first = Task { await api.call("GET", "/v1/events?wait=30", key: api.reader, timeout: 90) }
            #expect(await Poll.until(30) { api.api.longPollsWaiting == 1 }, "the first long poll did not wait")
            let sameKey = await api.call("GET", "/v1/events?wait=30", key: api.reader)
            #expect(
                sameKey.status == 200 && sameKey.headers["Retry-After"] == "1", "\(sameKey.headers) \(sameKey.text)")
            #expect(try APITester.object(sameKey)["events"] as? [Any] != nil)
            let second = Task { await api.call("GET", "/v1/events?wait=30", key: api.backend, timeout: 90) }
            #expect(await Poll.until(30) { api.api.longPollsWaiting == 2 }, "the second long poll did not wait")
            let third = await api.call("GET", "/v1/events?wait=30", key: other)
            #expect(third.status == 200 && third.headers["Retry-After"] == "1", "\(third.headers) \(third.text)")
            let noWait = await api.call("GET", "/v1/events", key: other)
            #expect(noWait.status == 200 && noWait.headers["Retry-After"] == nil, "a request that does not wait")

            // An event answers both waiting long polls; their slots are free again.
            let token = Tokens.hex(3)
            #expect(await api.call("PUT", "/v1/devices/\(token)", key: api.backend, json: "{}").status == 201)
            #expect(await api.call("DELETE", "/v1/devices/\(token)", key: api.backend).status == 204)
            let answered = [await first.value, await second.value]
            for reply in answered {
                #expect(reply.status == 200 && reply.headers["Retry-After"] == nil, "\(reply.headers) \(reply.text)")
                // The event, or nothing when the steps above outlasted the 30 s wait (a loaded machine).
                #expect(((try APITester.object(reply)["events"] as? [Any])?.count ?? -1) <= 1, "\(reply.text)")
                #expect((try APITester.object(reply)["events"] as? [Any]) != nil, "\(reply.text)")
            }
            #expect(await Poll.until(30) { api.api.longPollsWaiting == 0 })
            let cursor = try #require(try APITester.object(answered[0])["next"] as? String)
            let again = Task { await api.call("GET", "/v1/events?wait=30&after=\(cursor)", key: other, timeout: 90) }
            #expect(await Poll.until(30) { api.api.longPollsWaiting == 1 }, "a freed slot was not taken")
            await api.close()
            #expect(await again.value.status == 200)
        }
    }
}
