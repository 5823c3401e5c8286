import Foundation
import HTTP2Transport
import HTTPServer
import Logging
import QueueModel
import Store
import Testing
import Threads

@testable import Events

@Suite struct WebhookSenderTests {
    static let secret = "s3cret-s3cret-s3cret"

    /// What the receiving server saw.
    struct Received: Sendable {
        var calls = 0
        var eventIDs: [String] = []
        var badRequests: [String] = []
    }

    /// A receiver that checks each POST (signature, content type), answers 500 to the first and 200 after.
    static func receiver(_ received: Locked<Received>) throws -> HTTPServer {
        try HTTPServer.start(listen: try ListenAddress(parsing: "127.0.0.1:0")) { request in
            let call = received.withLock { state in
                state.calls += 1
                return state.calls
            }
            guard request.method == "POST", request.headers["Content-Type"] == "application/json",
                request.headers["X-Apnsd-Signature"] == WebhookSender.signature(of: request.body, secret: secret)
            else {
                received.withLock { $0.badRequests.append("\(request.method) \(request.headers)") }
                return HTTPResponse(status: 401, text: "bad signature\n")
            }
            if call == 1 { return HTTPResponse(status: 500, text: "try again\n") }
            let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            let ids = (object?["events"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            received.withLock { $0.eventIDs += ids }
            return HTTPResponse(status: 200, text: "ok\n")
        }
    }

    @Test func eventsArriveOnceInOrderAfterARetryAndARestartResendsNothing() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        for n in 0..<5 { try await store.writeEvent(n) }
        let received = Locked(Received())
        let server = try Self.receiver(received)
        let logs = Locked<[String]>([])
        let logger = Logger(
            label: "test", minimumLevel: .debug, sink: .custom { line in logs.withLock { $0.append(line) } })
        var options = WebhookSender.Options()
        options.batchSize = 2
        options.retryBase = .milliseconds(20)
        options.retryCap = .milliseconds(100)
        options.pollInterval = .seconds(3600)
        options.post = HTTPExchange(timeout: .seconds(10), connectTimeout: .seconds(5))
        let url = "http://127.0.0.1:\(server.address.port)/hook"

        let sender = WebhookSender(store: store, url: url, secret: Self.secret, logger: logger, options: options)
        await sender.start()
        #expect(await eventually { received.withLock { $0.eventIDs.count } == 5 })
        // An event written while it runs wakes it (the poll interval is an hour; the wait bound, a minute).
        try await store.writeEvent(5)
        #expect(await eventually { received.withLock { $0.eventIDs.count } == 6 })
        #expect(try await eventually { try await store.webhookCursor() == EventID(6) })
        await sender.stop()

        // A new sender on the same store starts from the cursor: only the new event goes.
        try await store.writeEvent(6)
        let restarted = WebhookSender(store: store, url: url, secret: Self.secret, logger: logger, options: options)
        await restarted.start()
        #expect(await eventually { received.withLock { $0.eventIDs.count } == 7 })
        #expect(try await eventually { try await store.webhookCursor() == EventID(7) })
        await restarted.stop()
        await server.stop()

        let seen = received.withLock { $0 }
        #expect(seen.eventIDs == (1...7).map(String.init))
        #expect(seen.badRequests.isEmpty)
        // 500 once, then batches of 2, 2, 1, then 1, then 1 after the restart.
        #expect(seen.calls == 6)
        let lines = logs.withLock { $0 }
        #expect(lines.contains { $0.contains("webhook.failed") && $0.contains("500") })
        #expect(lines.filter { $0.contains("webhook.delivered") }.count == 5)
        #expect(!lines.contains { $0.contains(Self.secret) })
        await temporary.remove()
    }

    @Test func anUnreachableReceiverIsRetriedAndNothingAdvances() async throws {
        let temporary = try await TemporaryStore()
        try await temporary.store.writeEvent(0)
        let failures = Locked(0)
        let logger = Logger(
            label: "test",
            sink: .custom { line in if line.contains("webhook.failed") { failures.withLock { $0 += 1 } } })
        var options = WebhookSender.Options()
        options.retryBase = .milliseconds(10)
        options.retryCap = .milliseconds(20)
        options.post = HTTPExchange(timeout: .seconds(2), connectTimeout: .seconds(1))
        // Port 1 on loopback: connection refused.
        let sender = WebhookSender(
            store: temporary.store, url: "http://127.0.0.1:1/hook", secret: Self.secret, logger: logger,
            options: options)
        await sender.start()
        #expect(await eventually { failures.withLock { $0 } >= 3 })
        await sender.stop()
        #expect(try await temporary.store.webhookCursor() == nil)
        await temporary.remove()
    }

    @Test func theBackoffDoublesFromTheBaseUpToTheCapWithAJitteredHalf() {
        let base = Duration.seconds(1)
        let cap = Duration.seconds(60)
        #expect(WebhookSender.backoff(failures: 1, base: base, cap: cap, random: 1) == .seconds(1))
        #expect(WebhookSender.backoff(failures: 1, base: base, cap: cap, random: 0) == .milliseconds(500))
        #expect(WebhookSender.backoff(failures: 4, base: base, cap: cap, random: 1) == .seconds(8))
        #expect(WebhookSender.backoff(failures: 7, base: base, cap: cap, random: 1) == .seconds(60))
        #expect(WebhookSender.backoff(failures: 500, base: base, cap: cap, random: 0) == .seconds(30))
    }
}
