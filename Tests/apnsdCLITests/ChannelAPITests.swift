import Foundation
import Testing

/// `/v1/channels` through `apnsd serve` against the in-process apns-mock: the routes mirror `apnsd channel`
/// (create admin, read read, delete admin), APNs's refusals are 422 with Apple's reason and write nothing.
@Suite(.offThePool) struct ChannelAPITests {
    static let topic = ChannelCLITests.topic

    @Test func createListShowDeleteThroughTheAPI() throws {
        var setup = try ChannelCLITests.setup(withoutBroadcast: [ChannelCLITests.other])
        setup.cli.environment["APNSD_TOPIC"] = Self.topic
        defer { setup.stop() }
        let api = try APIHarness(cli: setup.cli, initialized: true)
        defer { api.stop() }

        // Scopes: create and delete are admin; a send+read key may not.
        let forbidden = try api.call("POST", "/v1/channels", key: api.backend, json: #"{"topic":"\#(Self.topic)"}"#)
        #expect(forbidden.status == 403, "\(forbidden.body)")

        let created = try api.call(
            "POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(Self.topic)","storage":"none"}"#)
        #expect(created.status == 201, "\(created.body)")
        let channel = try APIHarness.object(created)
        let id = try #require(channel["channelId"] as? String)
        #expect(
            channel["id"] as? String == "1" && channel["storage"] as? String == "none"
                && channel["messageStoragePolicy"] as? Int == 0)
        #expect(channel["environment"] as? String == "production" && channel["credential"] as? String == "default")
        #expect(setup.server.stats().channels.byID[id]?.messageStoragePolicy == 0)
        // No topic: apns.topic; no storage: latest.
        let byDefault = try APIHarness.object(try api.call("POST", "/v1/channels", key: api.admin, json: "{}"))
        #expect(
            byDefault["topic"] as? String == Self.topic && byDefault["storage"] as? String == "latest",
            "\(byDefault)")

        // Lists: the table, and with ?topic= the comparison with APNs.
        let listed = try APIHarness.object(try api.call("GET", "/v1/channels", key: api.reader))
        #expect((listed["channels"] as? [[String: Any]])?.count == 2)
        let compared = try APIHarness.object(
            try api.call("GET", "/v1/channels?topic=\(Self.topic)", key: api.reader))
        let rows = try #require(compared["channels"] as? [[String: Any]])
        #expect(
            rows.count == 2 && rows[0]["atAPNs"] as? Bool == true
                && (compared["notRecorded"] as? [Any])?.isEmpty == true, "\(compared)")

        // Show by local number and by APNs id (base64url in a path).
        let shown = try APIHarness.object(try api.call("GET", "/v1/channels/1", key: api.reader))
        #expect(shown["apnsStorage"] as? String == "none" && shown["channelId"] as? String == id)
        let urlSafe = id.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let byID = try api.call("GET", "/v1/channels/\(urlSafe)", key: api.reader)
        let found = try APIHarness.object(byID)
        #expect(byID.status == 200 && found["id"] as? String == "1", "\(byID.body)")
        #expect(try api.call("GET", "/v1/channels/99", key: api.reader).status == 404)

        // Delete: admin; the row is kept, marked; a second delete is a conflict.
        #expect(try api.call("DELETE", "/v1/channels/1", key: api.reader).status == 403)
        let deleted = try api.call("DELETE", "/v1/channels/1", key: api.admin)
        let marked = try APIHarness.object(deleted)
        #expect(deleted.status == 200 && marked["deletedAt"] is String, "\(deleted.body)")
        #expect(setup.server.stats().channels.byID[id]?.deleted == true)
        #expect(try api.call("DELETE", "/v1/channels/1", key: api.admin).status == 409)
        let withDeleted = try APIHarness.object(try api.call("GET", "/v1/channels?deleted=true", key: api.reader))
        #expect((withDeleted["channels"] as? [[String: Any]])?.count == 2)
        let live = try APIHarness.object(try api.call("GET", "/v1/channels", key: api.reader))
        #expect((live["channels"] as? [Any])?.count == 1)
    }

    /// With the worker, and API-only (`--no-worker`, where the credentials are all a reload applies).
    @Test(arguments: [false, true]) func aReloadGivesChannelsAndEnqueueChecksTheNewCredentials(withoutWorker: Bool)
        throws
    {
        var setup = try ChannelCLITests.setup()
        defer { setup.stop() }
        // Credentials from the config file only: first for the scores app alone.
        let key = try #require(setup.cli.environment["APNSD_KEY_FILE"])
        for name in ["APNSD_KEY_FILE", "APNSD_KEY_ID", "APNSD_TEAM_ID"] { setup.cli.environment[name] = nil }
        func configure(_ topics: [String]) throws -> String {
            try setup.cli.write(
                "apnsd.json",
                #"""
                {"apns":{"credentials":[{"name":"sports","keyFile":"\#(key)","keyId":"TESTKEY001","teamId":"TESTTEAM01",
                  "topics":[\#(topics.map { "\"\($0)\"" }.joined(separator: ","))]}]}}
                """#)
        }
        setup.cli.environment["APNSD_CONFIG"] = try configure([Self.topic])
        let api = try APIHarness(cli: setup.cli, arguments: withoutWorker ? ["--no-worker"] : [], initialized: true)
        defer { api.stop() }
        let other = ChannelCLITests.other
        let refused = try api.call("POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(other)"}"#)
        #expect(
            refused.status != 201 && refused.body.contains("no credential sends"),
            "\(refused.status) \(refused.body)")
        let notification =
            #"{"topic":"\#(other)","token":"\#(String(repeating: "ab", count: 32))","payload":{"aps":{"alert":"hi"}}}"#
        #expect(try api.call("POST", "/v1/notifications", key: api.backend, json: notification).status == 400)

        _ = try configure([Self.topic, other])
        kill(api.serve.pid, SIGHUP)
        #expect(
            Fleet.waitUntil(20, every: 0.02) { api.serve.log.contains("reload.done") },
            "\(api.serve.log.suffix(1500))")
        #expect(api.serve.log.contains(#""applied":"credentials""#), "\(api.serve.log.suffix(1500))")
        let created = try api.call("POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(other)"}"#)
        #expect(created.status == 201, "\(created.body)")
        #expect(try APIHarness.object(created)["credential"] as? String == "sports")
        #expect(try api.call("POST", "/v1/notifications", key: api.backend, json: notification).status == 202)
    }

    @Test func refusalsAreAnsweredAndWriteNothing() throws {
        var setup = try ChannelCLITests.setup(withoutBroadcast: [ChannelCLITests.other])
        defer { setup.stop() }
        let api = try APIHarness(cli: setup.cli, initialized: true)
        defer { api.stop() }
        for (body, status, field, says) in [
            (#"{"topic":"\#(Self.topic).push-type.liveactivity"}"#, 400, "topic", ".push-type. suffix"),
            (#"{"topic":"\#(Self.topic)","storage":"always"}"#, 400, "storage", "not none or latest"),
            (#"{"topic":"\#(Self.topic)","environment":"staging"}"#, 400, "environment", "unknown environment"),
            (#"{"topic":"\#(Self.topic)","policy":1}"#, 400, nil, "policy"),
            (#"{"topic":"\#(ChannelCLITests.other)"}"#, 422, nil, "400 FeatureNotEnabled"),
            (#"{"topic":"com.example.notours"}"#, 422, nil, "400 TopicDisallowed"),
        ] as [(String, Int, String?, String)] {
            let answer = try api.call("POST", "/v1/channels", key: api.admin, json: body)
            let error = try APIHarness.error(answer)
            #expect(
                answer.status == status && (error["message"] as? String)?.contains(says) == true,
                "\(body): \(answer.status) \(answer.body)")
            if let field { #expect(error["field"] as? String == field, "\(body)") }
        }
        #expect(try APIHarness.query(setup.cli.database, "SELECT COUNT(*) FROM channels") == ["0"])
        #expect(
            try api.call("GET", "/v1/channels?environment=production", key: api.reader).status == 400,
            "environment needs topic")
        #expect(try api.call("GET", "/v1/channels?color=red", key: api.reader).status == 400)
        // APNs not answering at all: 502, nothing recorded.
        setup.server.stop()
        let unreachable = try api.call("POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(Self.topic)"}"#)
        let error = try APIHarness.error(unreachable)
        #expect(unreachable.status == 502 && error["code"] as? String == "apns_unreachable", "\(unreachable.body)")
        #expect(try APIHarness.query(setup.cli.database, "SELECT COUNT(*) FROM channels") == ["0"])
        setup.server = try ChannelCLITests.mock(setup.identity)
    }

    /// Without any credential, the routes that ask APNs say so (503) rather than failing later; the local table
    /// is still listed.
    @Test func withoutACredentialTheRoutesAreUnavailable() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let api = try APIHarness(cli: cli)
        defer { api.stop() }
        let listed = try api.call("GET", "/v1/channels", key: api.reader)
        #expect(
            listed.status == 200
                && listed.body.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"channels":[]}"#,
            "\(listed.body)")
        for (method, path) in [
            ("GET", "/v1/channels?topic=com.example.app"), ("GET", "/v1/channels/1"), ("DELETE", "/v1/channels/1"),
        ] {
            let answer = try api.call(method, path, key: method == "GET" ? api.reader : api.admin)
            let error = try APIHarness.error(answer)
            #expect(
                answer.status == 503 && error["code"] as? String == "channels_unavailable",
                "\(method) \(path): \(answer.body)")
        }
    }
}
