import APNs
import APNsMock
import Channels
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// `/v1/channels` over a real socket, managing channels at the in-process apns-mock: the routes mirror
/// `apnsd channel` (create admin, read read, delete admin), APNs's refusals are 422 with Apple's reason and write
/// nothing. (That a SIGHUP reload gives channels is ChannelReloadTests', on the binary.)
@Suite struct ChannelAPITests {
    static let topic = "com.example.scores"
    static let other = "com.example.other"

    /// The mock, its team sending for the two apps only (any other bundle id is TopicDisallowed), and the tester
    /// whose channel management talks to it with the fixture key, as the `default` credential.
    struct Setup {
        let api: APITester
        let server: MockServer
        let identity: TLSIdentity
        /// Holds the mock's CA, which channel management trusts.
        let caFolder: URL
        /// The worker, when started with one.
        let sending: APITester.Sending?

        /// `anyTopic`: the mock takes every bundle id (its team is not limited to the two apps).
        static func start(
            defaultTopic: String = ChannelAPITests.topic, withoutBroadcast: Set<String> = [], worker: Bool = false,
            anyTopic: Bool = false
        ) async throws -> Setup {
            let identity = try TLSIdentity.throwaway()
            let server =
                anyTopic
                ? try MockServer(
                    configuration: MockConfiguration(
                        identity: identity, verifier: JWTVerifier(key: try key(), credential: try credential())))
                : try mock(identity, withoutBroadcast: withoutBroadcast)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-ca-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let caFile = folder.appendingPathComponent("ca.pem").path
            try identity.caCertificatePEM!.write(toFile: caFile, atomically: true, encoding: .utf8)
            let url = "https://127.0.0.1:\(server.port)"
            let tokens = ProviderTokenCache(key: try key(), credential: try credential())
            let api = try await APITester(defaultTopic: defaultTopic) { store in
                ChannelManager(
                    store: store,
                    client: ChannelClient(
                        baseURLs: [.production: url, .development: url], caFile: caFile, timeout: .seconds(10)),
                    credentials: [ChannelCredential(name: "default", authentication: .token(tokens))],
                    routes: .only("default"))
            }
            let sending = worker ? try APITester.Sending(api, to: (server, caFile)) : nil
            return Setup(api: api, server: server, identity: identity, caFolder: folder, sending: sending)
        }

        static func mock(_ identity: TLSIdentity, withoutBroadcast: Set<String> = []) throws -> MockServer {
            let team = MockTeam(key: try key(), credential: try credential(), topics: [topic, other])
            return try MockServer(
                configuration: MockConfiguration(
                    identity: identity, verifier: JWTVerifier(teams: [team]), withoutBroadcast: withoutBroadcast))
        }

        static func key() throws -> SigningKey {
            try SigningKey(contentsOfFile: APITester.Sending.fixture("keys/AuthKey_TESTKEY001.p8"))
        }

        static func credential() throws -> ProviderCredential {
            try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01")
        }

        func stop() async {
            await sending?.stop()
            server.stop()
            await api.close()
            try? FileManager.default.removeItem(at: caFolder)
        }
    }

    @Test func createListShowDeleteThroughTheAPI() async throws {
        let setup = try await Setup.start(withoutBroadcast: [Self.other])
        try await withCleanup(await setup.stop()) {
            let api = setup.api
            // Scopes: create and delete are admin; a send+read key may not.
            let forbidden = await api.call(
                "POST", "/v1/channels", key: api.backend, json: #"{"topic":"\#(Self.topic)"}"#)
            #expect(forbidden.status == 403, "\(forbidden.text)")

            let created = await api.call(
                "POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(Self.topic)","storage":"none"}"#)
            #expect(created.status == 201, "\(created.text)")
            let channel = try APITester.object(created)
            let id = try #require(channel["channelId"] as? String)
            #expect(
                channel["id"] as? String == "1" && channel["storage"] as? String == "none"
                    && channel["messageStoragePolicy"] as? Int == 0)
            #expect(channel["environment"] as? String == "production" && channel["credential"] as? String == "default")
            #expect(setup.server.stats().channels.byID[id]?.messageStoragePolicy == 0)
            // No topic: apns.topic; no storage: latest.
            let byDefault = try APITester.object(await api.call("POST", "/v1/channels", key: api.admin, json: "{}"))
            #expect(
                byDefault["topic"] as? String == Self.topic && byDefault["storage"] as? String == "latest",
                "\(byDefault)")

            // Lists: the table, and with ?topic= the comparison with APNs.
            let listed = try APITester.object(await api.call("GET", "/v1/channels", key: api.reader))
            #expect((listed["channels"] as? [[String: Any]])?.count == 2)
            let compared = try APITester.object(
                await api.call("GET", "/v1/channels?topic=\(Self.topic)", key: api.reader))
            let rows = try #require(compared["channels"] as? [[String: Any]])
            #expect(
                rows.count == 2 && rows[0]["atAPNs"] as? Bool == true
                    && (compared["notRecorded"] as? [Any])?.isEmpty == true, "\(compared)")

            // Show by local number and by APNs id (base64url in a path).
            let shown = try APITester.object(await api.call("GET", "/v1/channels/1", key: api.reader))
            #expect(shown["apnsStorage"] as? String == "none" && shown["channelId"] as? String == id)
            let urlSafe = id.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let byID = await api.call("GET", "/v1/channels/\(urlSafe)", key: api.reader)
            let found = try APITester.object(byID)
            #expect(byID.status == 200 && found["id"] as? String == "1", "\(byID.text)")
            #expect(await api.call("GET", "/v1/channels/99", key: api.reader).status == 404)

            // Delete: admin; the row is kept, marked; a second delete is a conflict.
            #expect(await api.call("DELETE", "/v1/channels/1", key: api.reader).status == 403)
            let deleted = await api.call("DELETE", "/v1/channels/1", key: api.admin)
            let marked = try APITester.object(deleted)
            #expect(deleted.status == 200 && marked["deletedAt"] is String, "\(deleted.text)")
            #expect(setup.server.stats().channels.byID[id]?.deleted == true)
            #expect(await api.call("DELETE", "/v1/channels/1", key: api.admin).status == 409)
            let withDeleted = try APITester.object(await api.call("GET", "/v1/channels?deleted=true", key: api.reader))
            #expect((withDeleted["channels"] as? [[String: Any]])?.count == 2)
            let live = try APITester.object(await api.call("GET", "/v1/channels", key: api.reader))
            #expect((live["channels"] as? [Any])?.count == 1)
        }
    }

    @Test func refusalsAreAnsweredAndWriteNothing() async throws {
        let setup = try await Setup.start(withoutBroadcast: [Self.other])
        let api = setup.api
        // The mock is stopped below; a failure before that leaves it to the end of the run.
        defer {
            Task {
                await api.close()
                try? FileManager.default.removeItem(at: setup.caFolder)
            }
        }
        for (body, status, field, says) in [
            (#"{"topic":"\#(Self.topic).push-type.liveactivity"}"#, 400, "topic", ".push-type. suffix"),
            (#"{"topic":"\#(Self.topic)","storage":"always"}"#, 400, "storage", "not none or latest"),
            (#"{"topic":"\#(Self.topic)","environment":"staging"}"#, 400, "environment", "unknown environment"),
            (#"{"topic":"\#(Self.topic)","policy":1}"#, 400, nil, "policy"),
            (#"{"topic":"\#(Self.other)"}"#, 422, nil, "400 FeatureNotEnabled"),
            (#"{"topic":"com.example.notours"}"#, 422, nil, "400 TopicDisallowed"),
        ] as [(String, Int, String?, String)] {
            let answer = await api.call("POST", "/v1/channels", key: api.admin, json: body)
            let error = try APITester.error(answer)
            #expect(
                answer.status == status && (error["message"] as? String)?.contains(says) == true,
                "\(body): \(answer.status) \(answer.text)")
            if let field { #expect(error["field"] as? String == field, "\(body)") }
        }
        #expect(try await api.query("SELECT COUNT(*) FROM channels") == ["0"])
        #expect(
            await api.call("GET", "/v1/channels?environment=production", key: api.reader).status == 400,
            "environment needs topic")
        #expect(await api.call("GET", "/v1/channels?color=red", key: api.reader).status == 400)
        // APNs not answering at all: 502, nothing recorded.
        setup.server.stop()
        let unreachable = await api.call("POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(Self.topic)"}"#)
        let error = try APITester.error(unreachable)
        #expect(unreachable.status == 502 && error["code"] as? String == "apns_unreachable", "\(unreachable.text)")
        #expect(try await api.query("SELECT COUNT(*) FROM channels") == ["0"])
    }

    /// Without any credential, the routes that ask APNs say so (503) rather than failing later; the local table
    /// is still listed.
    @Test func withoutACredentialTheRoutesAreUnavailable() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let listed = await api.call("GET", "/v1/channels", key: api.reader)
            #expect(
                listed.status == 200
                    && listed.text.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"channels":[]}"#,
                "\(listed.text)")
            for (method, path) in [
                ("GET", "/v1/channels?topic=com.example.app"), ("GET", "/v1/channels/1"), ("DELETE", "/v1/channels/1"),
            ] {
                let answer = await api.call(method, path, key: method == "GET" ? api.reader : api.admin)
                let error = try APITester.error(answer)
                #expect(
                    answer.status == 503 && error["code"] as? String == "channels_unavailable",
                    "\(method) \(path): \(answer.text)")
            }
        }
    }
}
