import Events
import Foundation
import Logging
import ProviderAuth
import TestSupport
import Testing
import Threads

/// The device routes and `GET /v1/events` over a real socket, and the signed webhook the events go out by.
@Suite struct APIDeviceEventTests {
    /// A webhook receiver (python3's http.server): answers 500 to the first POST, then 200; appends each body
    /// and its signature headers to `received`, one JSON line each.
    static let receiver = #"""
        import http.server, json, sys
        out, failed = sys.argv[2], [False]
        class Hook(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if not failed[0]:
                    failed[0] = True
                    self.send_response(500); self.end_headers(); return
                with open(out, "a") as f:
                    f.write(json.dumps({"body": body.decode(), "signature": self.headers["X-Apnsd-Signature"],
                                        "legacy": self.headers["X-Apnsd-Signature-Legacy"]}) + "\n")
                self.send_response(200); self.end_headers()
            def log_message(self, *args): pass
        http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()
        """#

    @Test func devicesEventsAndTheWebhook() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let script = try api.write("hook.py", Self.receiver)
            let received = api.folder.appendingPathComponent("received.jsonl").path
            let port = Ports.free()
            let hook = try ChildProcess(
                "/usr/bin/python3", [script, String(port), received],
                stderr: .file(api.folder.appendingPathComponent("hook.log").path))
            defer { hook.stop(signal: SIGKILL) }
            try #require(await Poll.until(20) { Ports.isListening(port) }, "the receiver did not start")
            let secret = "a-webhook-secret-of-some-length"
            // What `apnsd serve --webhook-url --webhook-secret` runs beside the API, its log kept to read back.
            let logged = Locked("")
            let webhook = WebhookSender(
                store: api.store, url: "http://127.0.0.1:\(port)/hook", signing: WebhookSigning(secret: secret),
                logger: Logger(
                    label: "apnsd.webhook", minimumLevel: .debug,
                    sink: .custom { line in logged.withLock { $0 += line } }))
            await webhook.start()
            let old = Tokens.hex(1)
            let new = Tokens.hex(2)

            #expect(
                await api.call("PUT", "/v1/devices/\(old)", key: api.backend, json: #"{"user":"alice"}"#).status == 201)
            #expect(
                await api.call("PUT", "/v1/devices/\(old)", key: api.backend, json: #"{"user":"alice"}"#).status == 200)
            let replaced = await api.call(
                "PUT", "/v1/devices/\(new)", key: api.backend, json: #"{"replaces":"\#(old)"}"#)
            #expect(replaced.status == 201, "\(replaced.text)")
            let oldDevice = try APITester.object(await api.call("GET", "/v1/devices/\(old)", key: api.reader))
            #expect(oldDevice["active"] as? Bool == false && oldDevice["reason"] as? String == "Replaced")
            let list = try APITester.object(
                await api.call("GET", "/v1/devices?user=alice&active=true", key: api.reader))
            #expect((list["devices"] as? [[String: Any]])?.compactMap { $0["token"] as? String } == [new])
            #expect(
                await api.call("DELETE", "/v1/users/alice/devices", key: api.backend).text.contains(#""deactivated":1"#)
            )
            #expect(
                await api.call("DELETE", "/v1/devices/\(new)", key: api.backend).status == 204,
                "already inactive: still 204")
            #expect(await api.call("DELETE", "/v1/devices/\(Tokens.hex(9))", key: api.backend).status == 404)
            #expect(await api.call("PUT", "/v1/devices/\(new)", key: api.reader, json: "{}").status == 403)

            let feed = try APITester.object(await api.call("GET", "/v1/events?wait=5", key: api.reader))
            let events = feed["events"] as? [[String: Any]] ?? []
            #expect(events.map { $0["reason"] as? String } == ["Replaced", "Removed"], "\(feed)")
            #expect(events.map { $0["token"] as? String } == [old, new])
            // The newest at once, with the cursor that follows them: the same as the whole feed's.
            let newest = try APITester.object(await api.call("GET", "/v1/events?last=1", key: api.reader))
            #expect((newest["events"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["Removed"], "\(newest)")
            #expect(newest["next"] as? String == feed["next"] as? String)
            let both = try APITester.object(await api.call("GET", "/v1/events?last=1000", key: api.reader))
            #expect((both["events"] as? [[String: Any]])?.count == 2)
            let after = try #require(newest["next"] as? String)
            for refused in [
                "last=0", "last=1001", "last=x", "last=5&after=\(after)", "last=5&wait=1", "last=5&limit=5",
            ] {
                let answer = await api.call("GET", "/v1/events?\(refused)", key: api.reader)
                #expect(answer.status == 400 && answer.text.contains(#""field":"last""#), "\(refused): \(answer.text)")
            }

            var lines: [String] = []
            let delivered = await Poll.until(60, every: 0.1) {
                lines = ((try? String(contentsOfFile: received, encoding: .utf8)) ?? "").split(separator: "\n").map(
                    String.init)
                return lines.reduce(0) { count, line in
                    count + line.components(separatedBy: "device.deactivated").count - 1
                } >= 2
            }
            await webhook.stop()
            #expect(delivered, "the webhook did not receive both events after its first 500: \(lines)")
            for line in lines {
                let post = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
                let body = try #require(post["body"])
                #expect(
                    post["legacy"] == "sha256=" + HMACSHA256.hex(key: Array(secret.utf8), message: Array(body.utf8)))
                // t=<seconds>,v1=<HMAC of "<t>.<body>">.
                let parts = (post["signature"] ?? "").split(separator: ",")
                let t = try #require(parts.first.flatMap { $0.hasPrefix("t=") ? Int($0.dropFirst(2)) : nil })
                #expect(
                    parts.dropFirst().map(String.init) == [
                        "v1=" + HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(t).\(body)".utf8))
                    ])
            }
            #expect(logged.withLock { !$0.isEmpty && !$0.contains(secret) }, "the secret is never logged")
        }
    }
}
