import Foundation
import ProviderAuth
import TestSupport
import Testing

extension APIServe {
    /// The device routes, `GET /v1/events` and the signed webhook, through a real `apnsd serve` over sockets.
    @Suite struct APIDeviceEventTests {
        /// A webhook receiver (python3's http.server): answers 500 to the first POST, then 200; appends each body
        /// and its signature header to `received`, one JSON line each.
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
                        f.write(json.dumps({"body": body.decode(), "signature": self.headers["X-Apnsd-Signature"]}) + "\n")
                    self.send_response(200); self.end_headers()
                def log_message(self, *args): pass
            http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()
            """#

        @Test func devicesEventsAndTheWebhook() throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let script = try cli.write("hook.py", Self.receiver)
            let received = cli.directory.appendingPathComponent("received.jsonl").path
            let port = Ports.free()
            let hook = Process()
            hook.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            hook.arguments = [script, String(port), received]
            try hook.run()
            defer {
                // SIGKILL: the test process's threads may block SIGTERM, and a child inherits that mask.
                kill(hook.processIdentifier, SIGKILL)
                hook.waitUntilExit()
            }
            try #require(Fleet.waitUntil(20, every: 0.05) { Ports.isListening(port) }, "the receiver did not start")
            let secret = "a-webhook-secret-of-some-length"
            let api = try APIHarness(
                cli: cli,
                arguments: [
                    "--no-worker", "--webhook-url", "http://127.0.0.1:\(port)/hook",
                    "--webhook-secret", secret,
                ])
            defer { api.stop() }
            let old = CLI.token(1)
            let new = CLI.token(2)

            #expect(
                try api.call("PUT", "/v1/devices/\(old)", key: api.backend, json: #"{"user":"alice"}"#).status == 201)
            #expect(
                try api.call("PUT", "/v1/devices/\(old)", key: api.backend, json: #"{"user":"alice"}"#).status == 200)
            let replaced = try api.call("PUT", "/v1/devices/\(new)", key: api.backend, json: #"{"replaces":"\#(old)"}"#)
            #expect(replaced.status == 201, "\(replaced.body)")
            let oldDevice = try APIHarness.object(try api.call("GET", "/v1/devices/\(old)", key: api.reader))
            #expect(oldDevice["active"] as? Bool == false && oldDevice["reason"] as? String == "Replaced")
            let list = try APIHarness.object(try api.call("GET", "/v1/devices?user=alice&active=true", key: api.reader))
            #expect((list["devices"] as? [[String: Any]])?.compactMap { $0["token"] as? String } == [new])
            #expect(
                try api.call("DELETE", "/v1/users/alice/devices", key: api.backend).body.contains(#""deactivated":1"#))
            #expect(
                try api.call("DELETE", "/v1/devices/\(new)", key: api.backend).status == 204,
                "already inactive: still 204")
            #expect(try api.call("DELETE", "/v1/devices/\(CLI.token(9))", key: api.backend).status == 404)
            #expect(try api.call("PUT", "/v1/devices/\(new)", key: api.reader, json: "{}").status == 403)

            let feed = try APIHarness.object(try api.call("GET", "/v1/events?wait=5", key: api.reader))
            let events = feed["events"] as? [[String: Any]] ?? []
            #expect(events.map { $0["reason"] as? String } == ["Replaced", "Removed"], "\(feed)")
            #expect(events.map { $0["token"] as? String } == [old, new])

            var lines: [String] = []
            let delivered = Fleet.waitUntil(60, every: 0.1) {
                lines = ((try? String(contentsOfFile: received, encoding: .utf8)) ?? "").split(separator: "\n").map(
                    String.init)
                return lines.reduce(0) { count, line in
                    count + line.components(separatedBy: "device.deactivated").count - 1
                } >= 2
            }
            #expect(
                delivered,
                "the webhook did not receive both events after its first 500: \(lines); log: \(api.serve.log.suffix(2000))"
            )
            for line in lines {
                let post = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
                let body = try #require(post["body"])
                #expect(
                    post["signature"] == "sha256=" + HMACSHA256.hex(key: Array(secret.utf8), message: Array(body.utf8)))
            }
            #expect(!api.serve.log.contains(secret), "the secret is never logged")
        }
    }
}
