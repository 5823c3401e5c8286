import API
import APNs
import Events
import Foundation
import HTTPServer
import Metrics
import ProviderAuth
import QueueModel
import Store

/// The API on a real SQLite store in a temporary folder, called without sockets (the CLI tests drive
/// `apnsd serve` over them): keys for each scope set, and small request helpers.
final class APIHarness: Sendable {
    let folder: URL
    let store: Store
    let api: API
    let metrics = APNsdMetrics(version: "test")

    static let topic = "com.example.app"

    init(topicRoutes: TopicRoutes? = nil) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try await Store.open(at: folder.appendingPathComponent("apnsd.sqlite").path)
        let feed = EventFeed(store: store, pollInterval: .milliseconds(20))
        api = API(
            store: store, events: feed, metrics: metrics,
            settings: APISettings(defaultTopic: Self.topic, lease: .seconds(2), topicRoutes: topicRoutes),
            readiness: { [("database", "ok")] })
    }

    func close() async {
        await store.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// A new key with `scopes`; its secret.
    func key(_ name: String, _ scopes: Set<APIKeyScope> = [.send, .read, .admin]) async throws -> String {
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

    /// `method path?query` with `body` as JSON, authorised by `secret`.
    func call(
        _ method: String, _ target: String, _ body: String? = nil, key secret: String?,
        headers extra: [(String, String)] = []
    ) async -> Reply {
        var headers = HTTPHeaders()
        if let secret { headers.add("Authorization", "Bearer " + secret) }
        if body != nil { headers.add("Content-Type", "application/json") }
        for (name, value) in extra { headers.add(name, value) }
        let parts = target.split(separator: "?", maxSplits: 1)
        let query =
            parts.count > 1
            ? parts[1].split(separator: "&").map { item -> (name: String, value: String?) in
                let pair = item.split(separator: "=", maxSplits: 1)
                return (String(pair[0]), pair.count > 1 ? String(pair[1]).removingPercentEncoding : nil)
            } : []
        let response = await api.handle(
            HTTPRequest(
                method: method, path: String(parts[0]), query: query, headers: headers,
                body: Array((body ?? "").utf8)))
        return Reply(
            status: response.status, headers: response.headers, text: String(decoding: response.body, as: UTF8.self))
    }

    /// A distinct valid token.
    static func token(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "a", count: 64 - hex.count) + hex
    }
}
