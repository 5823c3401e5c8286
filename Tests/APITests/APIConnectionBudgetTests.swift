import API
import Foundation
import HTTPServer
import TestSupport
import Testing

/// The API behind the server's connection budget, on a real socket: refusals from the head before any body byte,
/// the Bearer scheme's spelling, the 503s in the API's error format, and an events long poll whose client left.
@Suite struct APIConnectionBudgetTests {
    static func options(_ change: (inout HTTPServer.Options) -> Void) -> HTTPServer.Options {
        var options = APITester.options
        change(&options)
        return options
    }

    static func code(_ answer: RawHTTPConnection.Answer?) -> String? {
        guard let answer, let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        else { return nil }
        return (object["error"] as? [String: Any])?["code"] as? String
    }

    @Test func aRequestIsRefusedFromItsHeadBeforeItsBodyIsSent() async throws {
        let api = try await APITester()
        let port = api.server.address.port
        let cases: [(head: String, status: Int, code: String)] = [
            ("POST /v1/notifications/batch HTTP/1.1\r\nContent-Length: 67108864\r\n", 401, "unauthorized"),
            ("POST /v1/notifications HTTP/1.1\r\nTransfer-Encoding: chunked\r\n", 401, "unauthorized"),
            (
                "POST /v1/notifications/batch HTTP/1.1\r\nAuthorization: Bearer \(api.backend)x\r\n"
                    + "Content-Length: 67108864\r\n", 401, "unauthorized"
            ),
            (
                "POST /v1/notifications HTTP/1.1\r\nAuthorization: Bearer \(api.reader)\r\nContent-Length: 1000\r\n",
                403, "forbidden"
            ),
            (
                "POST /v1/campaigns HTTP/1.1\r\nAuthorization: Bearer \(api.backend)\r\nContent-Length: 67108864\r\n",
                403, "forbidden"
            ),
            ("POST /v1/nowhere HTTP/1.1\r\nContent-Length: 1000\r\n", 404, "not_found"),
            ("PUT /v1/notifications HTTP/1.1\r\nContent-Length: 1000\r\n", 405, "method_not_allowed"),
        ]
        for (head, status, code) in cases {
            let client = try RawHTTPConnection(port: port)
            client.send(head + "Host: x\r\nContent-Type: application/json\r\n\r\n")
            let answer = await client.answer()
            #expect(answer?.status == status && Self.code(answer) == code, "\(head): \(String(describing: answer))")
            #expect(await client.closed(), "\(head): the connection stayed open")
        }
        #expect(api.server.bodyBytesInFlight == 0)
        // Sent whole with a valid key, the same route is served.
        let sent = await api.call(
            "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(1)))
        #expect(sent.status == 202, "\(sent.status) \(sent.text)")
        let logged = api.accessLog.withLock { $0 }
        #expect(logged.contains { $0.contains(#""status":401"#) && $0.contains(#""route":"/v1/notifications/batch""#) })
        await api.close()
    }

    @Test func theBearerSchemeIsCaseInsensitiveAndTakesExactlyOneSpace() async throws {
        let api = try await APITester()
        for scheme in ["Bearer ", "bearer ", "BEARER ", "bEaReR "] {
            let reply = await api.call("GET", "/v1/stats", key: nil, headers: ["Authorization: \(scheme)\(api.reader)"])
            #expect(reply.status == 200, "\(scheme): \(reply.status) \(reply.text)")
        }
        for scheme in ["Bearer  ", "Bearer\t", "Bearer\u{a0}", "Bearer:", "Bearer"] {
            let reply = await api.call("GET", "/v1/stats", key: nil, headers: ["Authorization: \(scheme)\(api.reader)"])
            #expect(reply.status == 401, "\(scheme.debugDescription): \(reply.status)")
        }
        await api.close()
    }

    @Test func pastItsBudgetsTheServerAnswers503InTheAPIFormat() async throws {
        let api = try await APITester(
            options: Self.options {
                $0.maxConnections = 2
                $0.probeReserve = 2
                $0.maxBodyBytesInFlight = 64
                // The idle connections filling the cap stay open for the whole test, however loaded the machine.
                $0.headerTimeout = 600
            })
        let port = api.server.address.port
        let busy = await api.call(
            "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(2)))
        #expect(busy.status == 503 && busy.errorCode == "too_many_bodies_in_flight", "\(busy.status) \(busy.text)")
        #expect(busy.headers["retry-after"] == "1")
        let idle = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
        #expect(await Poll.until(30, every: 0.01) { api.server.openConnections == 2 })
        let probe = try RawHTTPConnection(port: port)
        probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await probe.answer()?.status == 200)
        probe.send("GET /v1/stats HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.reader)\r\n\r\n")
        let refused = await probe.answer()
        #expect(
            refused?.status == 503 && Self.code(refused) == "too_many_connections", "\(String(describing: refused))")
        #expect(refused?.headers["retry-after"] == "1")
        withExtendedLifetime(idle) {}
        await api.close()
    }

    @Test func theServersOwnAnswersAreCountedAndLoggedWithTheirReason() async throws {
        let api = try await APITester()
        let port = api.server.address.port
        let many = (0...100).map { "p\($0)=1" }.joined(separator: "&")
        let head = try RawHTTPConnection(port: port)
        head.send("GET /v1/stats?\(many) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.reader)\r\n\r\n")
        let refused = await head.answer()
        #expect(refused?.status == 400 && Self.code(refused) == "invalid_request", "\(String(describing: refused))")
        let large = try RawHTTPConnection(port: port)
        large.send("POST /v1/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n")
        let tooLarge = await large.answer()
        #expect(tooLarge?.status == 413 && Self.code(tooLarge) == "body_too_large", "\(String(describing: tooLarge))")
        let text = api.metrics.render()
        #expect(text.contains(#"apnsd_http_requests_total{route="unmatched",code="400"} 1"#), "\(text)")
        #expect(text.contains(#"apnsd_http_requests_total{route="/v1/notifications",code="413"} 1"#), "\(text)")
        #expect(!text.contains(#"apnsd_http_request_duration_seconds_count{route="unmatched"}"#))
        let logged = api.accessLog.withLock { $0 }
        for (status, reason) in [(400, "invalid_request"), (413, "body_too_large")] {
            #expect(
                logged.contains { $0.contains(#""status":\#(status)"#) && $0.contains(#""refused":"\#(reason)""#) },
                "\(logged)")
        }
        #expect(!logged.contains { $0.contains(api.reader) })
        await api.close()
    }

    @Test func anEventsLongPollWhoseClientLeftFreesItsSlot() async throws {
        let api = try await APITester(options: Self.options { $0.maxConnections = 2 })
        let port = api.server.address.port
        var polls = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
        for poll in polls {
            poll.send("GET /v1/events?wait=30 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.reader)\r\n\r\n")
        }
        #expect(await Poll.until(30, every: 0.01) { api.server.openConnections == 2 })
        // Both wait: no events, no answer yet; every slot is taken.
        #expect(await polls[0].answer(within: 0.2) == nil)
        polls.removeAll()
        // Well before the 30 s wait ends, both slots are free again.
        #expect(await Poll.until(20, every: 0.01) { api.server.openConnections == 0 })
        let reply = await api.call("GET", "/v1/stats", key: api.reader)
        #expect(reply.status == 200)
        await api.close()
    }
}
