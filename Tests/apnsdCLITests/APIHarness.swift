import CLITestSupport
import Foundation
import TestSupport
import Testing

/// A running `apnsd serve` for the API tests, with API keys of each kind and helpers to call it with them.
final class APIHarness {
    let cli: CLI
    let serve: BackgroundWorker
    let base: String
    /// `send` and `read` (the default scopes).
    let backend: String
    let reader: String
    let sender: String
    let admin: String

    /// `apnsd init` (unless `initialized`), four API keys, then `apnsd serve ARGS` on a free port.
    /// Without a topic of its own, `APNSD_TOPIC` is set, so requests may leave `topic` out.
    init(cli: CLI, arguments: [String] = ["--no-worker"], initialized: Bool = false) async throws {
        var cli = cli
        if cli.environment["APNSD_TOPIC"] == nil { cli.environment["APNSD_TOPIC"] = "com.example.app" }
        self.cli = cli
        if !initialized { try #require(await cli.run("init").status == 0) }
        backend = try await Self.createKey(cli, "backend", [])
        reader = try await Self.createKey(cli, "reader", ["read"])
        sender = try await Self.createKey(cli, "sender", ["send"])
        admin = try await Self.createKey(cli, "ops", ["admin", "read"])
        (serve, base) = try ServeTests.start(cli, arguments)
    }

    static func createKey(_ cli: CLI, _ name: String, _ scopes: [String]) async throws -> String {
        let created = try await cli.run(["api-key", "create", name] + scopes.flatMap { ["--scope", $0] })
        try #require(created.status == 0 && created.lines.count == 1, "\(created.stderr)")
        return created.lines[0]
    }

    func stop() { serve.killIfRunning() }

    /// One request with `key` as its bearer secret (none when nil) and, with a body, `Content-Type: application/json`.
    func call(
        _ method: String, _ path: String, key: String?, json: String? = nil, bodyFile: String? = nil,
        headers: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> HTTPClient.Response {
        var all = headers
        if let key { all.append("Authorization: Bearer \(key)") }
        if (json != nil || bodyFile != nil) && !all.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            all.append("Content-Type: application/json")
        }
        return try #require(
            HTTPClient.request(method, base + path, headers: all, body: json, bodyFile: bodyFile),
            "no answer to \(method) \(path); log: \(serve.log.suffix(1500))", sourceLocation: sourceLocation)
    }

    /// The response's JSON object.
    static func object(_ response: HTTPClient.Response, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [String: Any]
    {
        try #require(
            try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
            "not a JSON object: \(response.status) \(response.body)", sourceLocation: sourceLocation)
    }

    /// The `error` member of an error response.
    static func error(_ response: HTTPClient.Response, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [String: Any]
    {
        try #require(
            try object(response, sourceLocation: sourceLocation)["error"] as? [String: Any],
            "no error member: \(response.body)", sourceLocation: sourceLocation)
    }

    /// What an invalid request must not change: the number of campaigns (notifications included), deliveries and
    /// stored idempotency keys, read by the `sqlite3` shell.
    func written() throws -> [String] {
        try SQLiteQuery.query(
            cli.database,
            """
            SELECT (SELECT count(*) FROM campaigns), (SELECT count(*) FROM deliveries),
                   (SELECT count(*) FROM campaign_audience), (SELECT count(*) FROM idempotency_keys)
            """)
    }

    static let payload = #"{"aps":{"alert":"hi"}}"#

    /// A `POST /v1/notifications` body to `token`.
    static func notification(_ token: String, extra: String = "") -> String {
        #"{"token":"\#(token)","payload":\#(payload)\#(extra)}"#
    }
}
