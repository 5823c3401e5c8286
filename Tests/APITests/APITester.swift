import API
import APNs
import Channels
import Events
import Foundation
import HTTPServer
import Logging
import Metrics
import ProviderAuth
import QueueModel
import Store
import TestSupport
import Testing
import Threads

/// The API as `apnsd serve --no-worker` runs it, in process: a real SQLite store in a temporary folder, the `API`
/// value, and the HTTP server on a loopback port the kernel picks. Requests go over that socket (`LoopbackHTTP`), so
/// each test states a request and the answer the server gives it.
final class APITester: Sendable {
    let folder: URL
    let store: Store
    let api: API
    let server: HTTPServer
    /// `http://127.0.0.1:PORT`.
    let base: String
    let metrics = APNsdMetrics(version: "test")
    /// The access log's lines (`api.accessLog`), in the order written.
    let accessLog = Locked<[String]>([])
    /// Keys with the scopes `apnsd api-key create` gives: send and read (its default), read, send, admin and read.
    let backend: String
    let reader: String
    let sender: String
    let admin: String

    static let topic = "com.example.app"
    /// The API's server options without the per-client cap: every test client shares 127.0.0.1, as clients behind a
    /// reverse proxy share its address, and some tests send hundreds of requests at once.
    static var options: HTTPServer.Options {
        var options = API.serverOptions
        options.maxConnectionsPerClient = 0
        return options
    }
    static let payload = #"{"aps":{"alert":"hi"}}"#

    var database: String { folder.appendingPathComponent("apnsd.sqlite").path }

    /// `defaultTopic`: `apns.topic`. `channels`: channel management on the tester's store, as serve builds it from
    /// its credentials (none: the channel routes answer 503). `longPolls`: `api.maxLongPolls` and
    /// `api.maxLongPollsPerKey`. `options`: the server's, its connection budget.
    init(
        topicRoutes: TopicRoutes? = nil, defaultTopic: String = APITester.topic,
        channels: (@Sendable (Store) -> ChannelManager)? = nil, longPolls: (total: Int, perKey: Int) = (256, 16),
        options: HTTPServer.Options = APITester.options
    ) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try await Store.open(at: folder.appendingPathComponent("apnsd.sqlite").path)
        let feed = EventFeed(store: store, pollInterval: .milliseconds(20))
        let lines = accessLog
        // At warning level, as an operator may set it: the access log is written whatever the level.
        let api = API(
            store: store, events: feed, metrics: metrics,
            settings: APISettings(
                defaultTopic: defaultTopic, lease: .seconds(2), topicRoutes: topicRoutes,
                maxLongPolls: longPolls.total, maxLongPollsPerKey: longPolls.perKey),
            readiness: { [("database", "ok")] },
            status: { await StatusReport.json(store: store, database: "ok", lease: .seconds(2), webhook: nil) },
            channels: channels?(store),
            accessLog: Logger(
                label: "apnsd.api", minimumLevel: .warning, sink: .custom { line in lines.withLock { $0.append(line) } }
            ))
        self.store = store
        self.api = api
        var options = options
        options.answeredByServer = { api.recordServerAnswer($0) }
        server = try HTTPServer.start(
            listen: try ListenAddress(host: "127.0.0.1", port: 0), options: options,
            bodyLimit: { api.bodyLimit(method: $0, path: $1) }, headCheck: { await api.checkHead($0) },
            handler: { await api.handle($0) })
        base = "http://127.0.0.1:\(server.address.port)"
        backend = try await Self.key(store, "backend", [.send, .read])
        reader = try await Self.key(store, "reader", [.read])
        sender = try await Self.key(store, "sender", [.send])
        admin = try await Self.key(store, "ops", [.admin, .read])
    }

    func close() async {
        api.beginShutdown()
        await server.stop(deadline: .seconds(5))
        await store.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// A new key named `name` with `scopes`; its secret.
    func key(_ name: String, _ scopes: Set<APIKeyScope> = [.send, .read, .admin]) async throws -> String {
        try await Self.key(store, name, scopes)
    }

    private static func key(_ store: Store, _ name: String, _ scopes: Set<APIKeyScope>) async throws -> String {
        let secret = try APIKeySecret.generate()
        _ = try await store.createAPIKey(name: name, scopes: scopes, secretHash: APIKeySecret.hash(secret), now: Date())
        return secret
    }

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var text: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var errorField: String? { (json["error"] as? [String: Any])?["field"] as? String }
    }

    /// `method target` authorised by `secret` (no Authorization header when nil), with `body` (or `json`, or the
    /// file `bodyFile`) as `Content-Type: application/json` unless `headers` (`"Name: value"`) name another type.
    /// No answer within `timeout` is recorded as an issue and reads as status 0.
    func call(
        _ method: String, _ target: String, _ body: String? = nil, key secret: String?, json: String? = nil,
        bodyFile: String? = nil, headers extra: [String] = [], timeout: TimeInterval = 30,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Reply {
        var headers = extra
        if let secret { headers.append("Authorization: Bearer \(secret)") }
        let content = body ?? json
        if content != nil || bodyFile != nil, !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            headers.append("Content-Type: application/json")
        }
        let data = content.map { Data($0.utf8) } ?? bodyFile.flatMap { FileManager.default.contents(atPath: $0) }
        guard
            let response = await LoopbackHTTP.request(
                port: Int(server.address.port), method, target, headers: headers, body: data, timeout: timeout)
        else {
            Issue.record("no answer to \(method) \(target)", sourceLocation: sourceLocation)
            return Reply(status: 0, headers: [:], text: "")
        }
        return Reply(
            status: response.status, headers: HTTPHeaders(response.headers.map { (name: $0.key, value: $0.value) }),
            text: response.body)
    }

    /// The reply's JSON object.
    static func object(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(reply.text.utf8)) as? [String: Any],
            "not a JSON object: \(reply.status) \(reply.text)", sourceLocation: sourceLocation)
    }

    /// The `error` member of an error reply.
    static func error(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(
            try object(reply, sourceLocation: sourceLocation)["error"] as? [String: Any],
            "no error member: \(reply.text)", sourceLocation: sourceLocation)
    }

    /// A `POST /v1/notifications` body to `token`.
    static func notification(_ token: String, extra: String = "") -> String {
        #"{"token":"\#(token)","payload":\#(payload)\#(extra)}"#
    }

    /// Writes `contents` to a file in the tester's folder; its path.
    func write(_ name: String, _ contents: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What an invalid request must not change: the number of campaigns (notifications included), deliveries,
    /// audience rows and stored idempotency keys, read by the `sqlite3` shell (another connection to the file).
    func written() async throws -> [String] {
        try await query(
            """
            SELECT (SELECT count(*) FROM campaigns), (SELECT count(*) FROM deliveries),
                   (SELECT count(*) FROM campaign_audience), (SELECT count(*) FROM idempotency_keys)
            """)
    }

    /// Rows of a read-only query by the `sqlite3` shell, one line per row, `|` between columns.
    func query(_ sql: String) async throws -> [String] {
        let result = try await ToolRun.run("/usr/bin/sqlite3", ["-readonly", "-cmd", ".timeout 5000", database, sql])
        try #require(result.status == 0, "sqlite3 failed on \(sql): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Every delivery row, newest first (what `apnsd log` prints).
    func deliveries() async throws -> [LogEntry] {
        try await store.log(LogFilter(), after: nil, limit: 100_000)
    }
}
