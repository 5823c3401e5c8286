import Foundation
import HTTP2Transport
import HTTPServer
import Logging
import ProviderAuth
import QueueModel
import Store
import Testing
import Threads

@testable import Events

@Suite struct WebhookSenderTests {
    static let secret = "s3cret-s3cret-s3cret"

    /// One POST as the receiver saw it.
    struct Post: Sendable {
        var path: String
        var signature: String?
        var legacy: String?
        var body: [UInt8]
        var eventIDs: [String]
        var status: Int
    }

    /// A local receiver over a real socket that records every POST and answers what `answer` says of it (its
    /// number from 1 and its event ids).
    final class Receiver: Sendable {
        let posts = Locked<[Post]>([])
        let server: HTTPServer

        init(_ answer: @escaping @Sendable (_ call: Int, _ ids: [String]) -> Int) throws {
            let posts = posts
            server = try HTTPServer.start(listen: try ListenAddress(parsing: "127.0.0.1:0")) { request in
                let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
                let ids = (object?["events"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                let call = posts.withLock { $0.count + 1 }
                let status = request.method == "POST" ? answer(call, ids) : 405
                posts.withLock {
                    $0.append(
                        Post(
                            path: request.path, signature: request.headers["X-Apnsd-Signature"],
                            legacy: request.headers["X-Apnsd-Signature-Legacy"], body: request.body, eventIDs: ids,
                            status: status))
                }
                return HTTPResponse(status: status, text: "\(status)\n")
            }
        }

        var url: String { "http://127.0.0.1:\(server.address.port)/hook" }
        /// The ids of the events answered 2xx, in the order they arrived.
        var delivered: [String] { posts.withLock { $0.filter { (200..<300).contains($0.status) }.flatMap(\.eventIDs) } }
        func stop() async { await server.stop() }
    }

    /// `t=<t>,v1=<hex>[,v1=<hex>]` checked from scratch: the HMAC-SHA256 of "<t>.<body>" under each of `secrets`,
    /// in order. Returns t.
    static func verify(_ header: String?, body: [UInt8], secrets: [String]) -> Int64? {
        guard let parts = header?.split(separator: ","), let first = parts.first, first.hasPrefix("t="),
            let t = Int64(first.dropFirst(2))
        else { return nil }
        let expected = secrets.map { "v1=" + HMACSHA256.hex(key: Array($0.utf8), message: Array("\(t).".utf8) + body) }
        return parts.dropFirst().map(String.init) == expected ? t : nil
    }

    static func options(clock: @escaping @Sendable () -> Date = { Date() }) -> WebhookSender.Options {
        var options = WebhookSender.Options()
        options.retryBase = .milliseconds(10)
        options.retryCap = .milliseconds(40)
        options.pollInterval = .seconds(3600)
        options.post = HTTPExchange(timeout: .seconds(10), connectTimeout: .seconds(5))
        options.clock = clock
        return options
    }

    static func logger(_ lines: Locked<[String]>) -> Logger {
        Logger(label: "test", minimumLevel: .debug, sink: .custom { line in lines.withLock { $0.append(line) } })
    }

    @Test func eventsArriveOnceInOrderAfterARetryAndARestartResendsNothing() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        for n in 0..<5 { try await store.writeEvent(n) }
        let receiver = try Receiver { call, _ in call == 1 ? 500 : 200 }
        let logs = Locked<[String]>([])
        var options = Self.options()
        options.batchSize = 2
        let signing = WebhookSigning(secret: Self.secret)

        let sender = WebhookSender(
            store: store, url: receiver.url, signing: signing, logger: Self.logger(logs), options: options)
        await sender.start()
        #expect(await eventually { receiver.delivered.count == 5 })
        // An event written while it runs wakes it (the poll interval is an hour; the wait bound, a minute).
        try await store.writeEvent(5)
        #expect(await eventually { receiver.delivered.count == 6 })
        #expect(try await eventually { try await store.webhookCursor() == EventID(6) })
        await sender.stop()

        // A new sender on the same store starts from the cursor: only the new event goes.
        try await store.writeEvent(6)
        let restarted = WebhookSender(
            store: store, url: receiver.url, signing: signing, logger: Self.logger(logs), options: options)
        await restarted.start()
        #expect(await eventually { receiver.delivered.count == 7 })
        #expect(try await eventually { try await store.webhookCursor() == EventID(7) })
        await restarted.stop()
        await receiver.stop()

        let posts = receiver.posts.withLock { $0 }
        #expect(receiver.delivered == (1...7).map(String.init))
        // 500 once, then batches of 2, 2, 1, then 1, then 1 after the restart.
        #expect(posts.count == 6)
        for post in posts {
            #expect(Self.verify(post.signature, body: post.body, secrets: [Self.secret]) != nil, "\(post)")
        }
        let lines = logs.withLock { $0 }
        #expect(lines.contains { $0.contains("webhook.failed") && $0.contains("500") })
        #expect(lines.filter { $0.contains("webhook.delivered") }.count == 5)
        #expect(!lines.contains { $0.contains(Self.secret) })
        #expect(try await store.webhookFailure() == nil, "a delivered batch ends its failure")
        await temporary.remove()
    }

    /// `t` is the sender's clock at each attempt (a retry is signed again), `v1` the HMAC of "<t>.<body>" with the
    /// secret, then with the previous one while it is set; the legacy header is the body's HMAC, sent unless off.
    @Test func everyAttemptIsSignedAfreshWithItsTimeThePreviousSecretAndTheLegacyHeader() async throws {
        let temporary = try await TemporaryStore()
        try await temporary.store.writeEvent(0)
        let receiver = try Receiver { call, _ in call == 1 ? 500 : 200 }
        let now = Locked(Date(timeIntervalSince1970: 1_900_000_000))
        let previous = "the-old-secret-rotating-out"
        let sender = WebhookSender(
            store: temporary.store, url: receiver.url,
            signing: WebhookSigning(secret: Self.secret, previousSecret: previous),
            logger: Logger(label: "test", sink: .none),
            options: Self.options(clock: {
                now.withLock { date in
                    defer { date += 7 }
                    return date
                }
            }))
        await sender.start()
        #expect(await eventually { receiver.delivered.count == 1 })
        await sender.stop()
        let posts = receiver.posts.withLock { $0 }
        try #require(posts.count == 2)
        let times = posts.map { Self.verify($0.signature, body: $0.body, secrets: [Self.secret, previous]) }
        #expect(times[0] == 1_900_000_000, "\(posts[0].signature ?? "")")
        #expect(times[1].map { $0 > 1_900_000_000 } == true, "signed again with a later t: \(times)")
        #expect(posts[0].body == posts[1].body)
        #expect(Self.verify(posts[0].signature, body: posts[0].body, secrets: [Self.secret]) == nil, "both v1 sent")
        for post in posts {
            #expect(
                post.legacy == "sha256=" + HMACSHA256.hex(key: Array(Self.secret.utf8), message: post.body))
        }

        // Legacy off, no previous secret: one v1, no legacy header.
        try await temporary.store.writeEvent(1)
        let modern = WebhookSender(
            store: temporary.store, url: receiver.url, signing: WebhookSigning(secret: Self.secret, legacy: false),
            logger: Logger(label: "test", sink: .none), options: Self.options())
        await modern.start()
        #expect(await eventually { receiver.delivered.count == 2 })
        await modern.stop()
        await receiver.stop()
        let last = try #require(receiver.posts.withLock { $0.last })
        #expect(last.legacy == nil)
        let t = try #require(Self.verify(last.signature, body: last.body, secrets: [Self.secret]), "\(last)")
        #expect(abs(Double(t) - Date().timeIntervalSince1970) < 600, "the real clock by default")
        await temporary.remove()
    }

    /// A batch the receiver refuses is parked once refused `maxAttempts` times and an hour after its first failure
    /// (the injected clock jumps the hour): the cursor moves past it, later events are delivered, its events stay
    /// readable; `WebhookRetry` sends it again after them.
    @Test func aBatchRefusedForGoodIsParkedAndLaterEventsGoOnThenARetryDeliversIt() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        for n in 0..<4 { try await store.writeEvent(n) }
        let accepting = Locked(false)
        // Event 1 is poison until told otherwise.
        let receiver = try Receiver { _, ids in ids.contains("1") && !accepting.withLock { $0 } ? 400 : 200 }
        let start = Date(timeIntervalSince1970: 1_900_000_000)
        let now = Locked(start)
        var options = Self.options(clock: { now.withLock { $0 } })
        options.batchSize = 2
        options.maxAttempts = 3
        let logs = Locked<[String]>([])
        let parked = Locked<[ParkedWebhookBatch]>([])
        let sender = WebhookSender(
            store: store, url: receiver.url, signing: WebhookSigning(secret: Self.secret),
            logger: Self.logger(logs), options: options, parked: { batch in parked.withLock { $0.append(batch) } })
        await sender.start()
        // Refused 3 times and more within the hour: not parked, nothing else sent, the failure stored.
        #expect(await eventually { receiver.posts.withLock { $0.count } >= 4 })
        #expect(receiver.delivered.isEmpty && parked.withLock { $0.isEmpty })
        let failing = try #require(try await store.webhookFailure())
        #expect(failing.first == EventID(1) && failing.last == EventID(2) && failing.events == 2)
        #expect(failing.attempts >= 3 && failing.firstFailureAt == start && failing.lastError == "HTTP 400")

        now.withLock { $0 = start.addingTimeInterval(3600) }
        #expect(await eventually { receiver.delivered == ["3", "4"] }, "\(receiver.posts.withLock { $0 })")
        #expect(try await eventually { try await store.webhookCursor() == EventID(4) })
        await sender.stop()
        let batches = try await store.parkedWebhookBatches()
        #expect(batches.map(\.first) == [EventID(1)] && batches.map(\.last) == [EventID(2)])
        #expect(batches.first?.events == 2 && batches.first?.lastError == "HTTP 400")
        #expect(batches.first?.parkedAt == start.addingTimeInterval(3600))
        #expect(parked.withLock { $0 } == batches)
        #expect(try await store.webhookFailure() == nil)
        #expect(logs.withLock { $0.filter { $0.contains("webhook.parked") }.count } == 1)
        #expect(try await store.events(after: nil, limit: 10).map(\.id.rawValue) == [1, 2, 3, 4], "still readable")

        // Refused again: still parked, its count up; accepted: gone, its events after 3 and 4.
        let refused = try await WebhookRetry.run(
            store: store, url: receiver.url, signing: WebhookSigning(secret: Self.secret),
            post: options.post, logger: Self.logger(logs))
        #expect(refused.delivered.isEmpty && refused.refused.map(\.error) == ["HTTP 400"])
        #expect(try await store.parkedWebhookBatches().first?.attempts == batches[0].attempts + 1)
        accepting.withLock { $0 = true }
        let retried = try await WebhookRetry.run(
            store: store, url: receiver.url, signing: WebhookSigning(secret: Self.secret),
            post: options.post, logger: Self.logger(logs))
        #expect(retried.delivered.map(\.id) == [batches[0].id] && retried.refused.isEmpty)
        #expect(receiver.delivered == ["3", "4", "1", "2"])
        #expect(try await store.parkedWebhookBatches().isEmpty)
        let last = try #require(receiver.posts.withLock { $0.last })
        #expect(Self.verify(last.signature, body: last.body, secrets: [Self.secret]) != nil)
        await receiver.stop()
        await temporary.remove()
    }

    /// A receiver that answers 503 is away, not refusing: however long and often, nothing is parked.
    @Test func anUnavailableReceiverParksNothing() async throws {
        let temporary = try await TemporaryStore()
        try await temporary.store.writeEvent(0)
        let receiver = try Receiver { _, _ in 503 }
        let now = Locked(Date(timeIntervalSince1970: 1_900_000_000))
        var options = Self.options(clock: { now.withLock { $0 } })
        options.maxAttempts = 1
        let sender = WebhookSender(
            store: temporary.store, url: receiver.url, signing: WebhookSigning(secret: Self.secret),
            logger: Logger(label: "test", sink: .none), options: options)
        await sender.start()
        #expect(await eventually { receiver.posts.withLock { $0.count } >= 2 })
        now.withLock { $0 += 7200 }
        let seen = receiver.posts.withLock { $0.count }
        #expect(await eventually { receiver.posts.withLock { $0.count } >= seen + 2 })
        await sender.stop()
        await receiver.stop()
        #expect(try await temporary.store.parkedWebhookBatches().isEmpty)
        #expect(try await temporary.store.webhookCursor() == nil)
        let failure = try #require(try await temporary.store.webhookFailure())
        #expect(failure.attempts == 0 && failure.lastError == "HTTP 503")
        await temporary.remove()
    }

    /// Every webhook log line names the URL without its query string or user information.
    @Test func logLinesNameTheURLWithoutItsQueryOrUser() async throws {
        let temporary = try await TemporaryStore()
        for n in 0..<2 { try await temporary.store.writeEvent(n) }
        let receiver = try Receiver { call, ids in ids.contains("1") ? 400 : 200 }
        let port = receiver.server.address.port
        let url = "http://hook-user:hook-password@127.0.0.1:\(port)/hook?token=query-token-42#part"
        let now = Locked(Date(timeIntervalSince1970: 1_900_000_000))
        var options = Self.options(clock: { now.withLock { $0 } })
        options.batchSize = 1
        options.maxAttempts = 1
        let logs = Locked<[String]>([])
        let sender = WebhookSender(
            store: temporary.store, url: url, signing: WebhookSigning(secret: Self.secret),
            logger: Self.logger(logs), options: options)
        await sender.start()
        // The first refusal is stored (its time read) before the clock jumps the hour.
        #expect(try await eventually { try await temporary.store.webhookFailure() != nil })
        now.withLock { $0 += 3600 }
        #expect(await eventually { receiver.delivered == ["2"] })
        await sender.stop()
        try await temporary.store.writeEvent(2)
        _ = try await WebhookRetry.run(
            store: temporary.store, url: url, signing: WebhookSigning(secret: Self.secret), post: options.post,
            logger: Self.logger(logs))
        await receiver.stop()
        let lines = logs.withLock { $0 }
        for message in ["webhook.failed", "webhook.parked", "webhook.delivered", "webhook.retry_failed"] {
            #expect(lines.contains { $0.contains(message) }, "no \(message) in \(lines)")
        }
        for line in lines {
            #expect(line.contains(#""webhook.url":"http://127.0.0.1:\#(port)/hook""#), "\(line)")
            #expect(!line.contains("query-token-42") && !line.contains("hook-password") && !line.contains("hook-user"))
        }
        #expect(receiver.posts.withLock { $0.allSatisfy { $0.path == "/hook" } })
        await temporary.remove()
    }

    @Test(arguments: [
        ("https://hooks.example/in?token=abc", "https://hooks.example/in"),
        ("http://user:pw@hooks.example:8080/in/x?a=1&b=2#f", "http://hooks.example:8080/in/x"),
        ("https://hooks.example", "https://hooks.example"),
        ("https://hooks.example/a@b", "https://hooks.example/a@b"),
        ("https://u@hooks.example#x", "https://hooks.example"),
    ]) func theRedactedURLKeepsSchemeHostPortAndPath(url: String, shown: String) {
        #expect(WebhookSender.redacted(url) == shown)
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
            store: temporary.store, url: "http://127.0.0.1:1/hook", signing: WebhookSigning(secret: Self.secret),
            logger: logger, options: options)
        await sender.start()
        #expect(await eventually { failures.withLock { $0 } >= 3 })
        await sender.stop()
        #expect(try await temporary.store.webhookCursor() == nil)
        #expect(try await temporary.store.webhookFailure()?.attempts == 0, "not a refusal")
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
