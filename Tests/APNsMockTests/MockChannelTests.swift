import APNs
import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// Channel management on the simulator (iOS 18 broadcast channels): create, read, list and delete over the same
/// listener as device pushes, with Apple's answers and error reasons (docs/APNS.md).
@Suite("Mock: broadcast channel management", .offThePool)
struct MockChannelTests {
    static let requestID = "6f1d2c3b-4a5e-4f60-8172-93a4b5c6d7e8"

    @Test("a channel is created (201, base64 id, empty body), read, listed and deleted (204); then it is gone")
    func roundTrip() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let auth = mock.authorization
        let created = try mock.send([.createChannel(auth, policy: 1), .createChannel(auth, policy: 0)])
        #expect(created.map(\.status) == [201, 201], "\(created.map(\.bodyText))")
        #expect(created.allSatisfy { $0.body.isEmpty })
        let stored = try #require(created[0].header("apns-channel-id"))
        let noStorage = try #require(created[1].header("apns-channel-id"))
        #expect(Data(base64Encoded: stored)?.count == 16)
        #expect(stored != noStorage)
        let answers = try mock.send([
            .channel("GET", stored, auth), .channel("GET", noStorage, auth), .listChannels(auth),
            .channel("DELETE", stored, auth), .channel("GET", stored, auth), .channel("DELETE", stored, auth),
            .listChannels(auth),
        ])
        #expect(answers.map(\.status) == [200, 200, 200, 204, 400, 400, 200], "\(answers.map(\.bodyText))")
        #expect(answers[0].json?["message-storage-policy"] as? Int == 1)
        #expect(answers[0].json?["push-type"] as? String == "LiveActivity")
        #expect(answers[0].header("content-type") == "application/json")
        #expect(answers[1].json?["message-storage-policy"] as? Int == 0)
        #expect(answers[2].json?["channels"] as? [String] == [stored, noStorage])
        #expect(answers[3].body.isEmpty)
        #expect(answers[4].reason == "ChannelNotRegistered" && answers[5].reason == "ChannelNotRegistered")
        #expect(answers[6].json?["channels"] as? [String] == [noStorage])
        // Another app's list is its own.
        #expect(try mock.send(.listChannels(auth, bundleID: "com.other.app")).json?["channels"] as? [String] == [])
        let stats = try mock.stats()
        #expect(stats.channels.created == 2 && stats.channels.deleted == 1 && stats.channels.open == 1)
        #expect(stats.channels.requests == ["create": 2, "read": 3, "list": 3, "delete": 2])
        #expect(stats.channels.reasons == ["ChannelNotRegistered": 2])
        #expect(
            stats.channels.byID[stored]
                == MockStats.ChannelEntry(
                    bundleID: "com.example.app", messageStoragePolicy: 1, broadcasts: 0, deleted: true))
        #expect(stats.channels.byID[noStorage]?.deleted == false)
        #expect(stats.totals.reasons["ChannelNotRegistered"] == 2)
    }

    @Test(
        "apns-request-id is echoed on every answer, success or error; without one a fresh UUID is sent; a malformed one is 400 BadMessageId"
    )
    func requestID() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let auth = mock.authorization
        let answers = try mock.send([
            CurlRequest.createChannel(auth).with("apns-request-id", Self.requestID),
            CurlRequest.channel("GET", "AAAAAAAAAAAAAAAAAAAAAA==", auth).with("apns-request-id", Self.requestID),
            CurlRequest.listChannels(auth),
            CurlRequest.listChannels(auth).with("apns-request-id", "not-a-uuid"),
        ])
        #expect(answers.map(\.status) == [201, 400, 200, 400])
        #expect(answers[0].header("apns-request-id") == Self.requestID)
        #expect(answers[1].header("apns-request-id") == Self.requestID)
        #expect(answers[1].reason == "ChannelNotRegistered")
        #expect(isCanonicalLowercaseUUID(answers[2].header("apns-request-id")))
        #expect(answers[3].reason == "BadMessageId")
        #expect(isCanonicalLowercaseUUID(answers[3].header("apns-request-id")))
        #expect(answers.allSatisfy { $0.header("apns-id") == nil })
    }

    @Test(
        "read and delete: no apns-channel-id is MissingChannelId, one that is not base64 BadChannelId, an unknown one or another app's ChannelNotRegistered"
    )
    func channelIDErrors() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let auth = mock.authorization
        let id = try mock.createChannel()
        var requests: [CurlRequest] = []
        for method in ["GET", "DELETE"] {
            requests += [
                .channel(method, nil, auth), .channel(method, "", auth), .channel(method, "not base64!", auth),
                .channel(method, "AAAA-_AAAAAAAAAAAAAAAA==", auth), .channel(method, "dW5rbm93bg==", auth),
                .channel(method, id, auth, bundleID: "com.other.app"),
            ]
        }
        let answers = try mock.send(requests)
        let expected = [
            "MissingChannelId", "MissingChannelId", "BadChannelId", "BadChannelId", "ChannelNotRegistered",
            "ChannelNotRegistered",
        ]
        #expect(answers.map(\.reason) == expected + expected)
        #expect(answers.allSatisfy { $0.status == 400 })
        // The channel survived the other app's delete.
        #expect(try mock.send(.channel("GET", id, auth)).status == 200)
        let failures = try mock.stats().validationFailures
        #expect(failures["BadChannelId"]?.example == "not base64!")
        #expect(failures["MissingChannelId"]?.count == 4)
    }

    @Test(
        "a create body other than {message-storage-policy: 0|1, push-type: LiveActivity} is refused with the reason for what is wrong",
        arguments: [
            (#"{"message-storage-policy":1,"push-type":"LiveActivity","ttl":5}"#, "BadRequestParams"),
            (#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#, "BadRequestPayload"),
            (#"{"message-storage-policy":"1","push-type":"LiveActivity"}"#, "BadRequestPayload"),
            (#"{"message-storage-policy":true,"push-type":"LiveActivity"}"#, "BadRequestPayload"),
            (#"{"push-type":"LiveActivity"}"#, "BadRequestPayload"),
            (#"{"message-storage-policy":1}"#, "MissingPushType"),
            (#"{"message-storage-policy":1,"push-type":"alert"}"#, "InvalidPushType"),
            (#"{"message-storage-policy":1,"push-type":7}"#, "InvalidPushType"),
            (#"[1]"#, "BadRequestPayload"),
            (#"{"message-storage-policy":1,"push-type":"LiveActivity""#, "BadRequestPayload"),
            ("", "BadRequestPayload"),
        ])
    func createBodyErrors(body: String, reason: String) throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let answer = try mock.send(.createChannel(mock.authorization, body: Array(body.utf8)))
        #expect(answer.status == 400)
        #expect(answer.reason == reason, "\(body)")
        #expect(try mock.stats().channels.created == 0)
    }

    @Test("push-type is read in any case; policy 0 and 1 both create")
    func createAccepted() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let answers = try mock.send([
            .createChannel(
                mock.authorization, body: Array(#"{"push-type":"liveactivity","message-storage-policy":0}"#.utf8)),
            .createChannel(
                mock.authorization, body: Array(#"{"message-storage-policy":1,"push-type":"LIVEACTIVITY"}"#.utf8)),
        ])
        #expect(answers.map(\.status) == [201, 201])
    }

    @Test(
        "a method the path does not take is 405 MethodNotAllowed; a path under /1/apps/ that is no channel path is 404 BadPath"
    )
    func methodAndPath() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let auth = mock.authorization
        let authorized: [(name: String, value: String)] = [("authorization", auth)]
        let answers = try mock.send([
            CurlRequest(method: "PUT", path: "/1/apps/com.example.app/channels", headers: authorized, body: nil),
            CurlRequest(
                method: "POST", path: "/1/apps/com.example.app/all-channels", headers: authorized,
                body: Array("{}".utf8)),
            CurlRequest(method: "DELETE", path: "/1/apps/com.example.app/all-channels", headers: authorized, body: nil),
            CurlRequest(method: "GET", path: "/4/broadcasts/apps/com.example.app", headers: authorized, body: nil),
            CurlRequest(method: "GET", path: "/1/apps/com.example.app/nothing", headers: authorized, body: nil),
            CurlRequest(method: "GET", path: "/1/apps//channels", headers: authorized, body: nil),
            CurlRequest(method: "GET", path: "/1/apps/com.example.app/channels/extra", headers: authorized, body: nil),
            CurlRequest(method: "POST", path: "/4/broadcasts/apps/", headers: authorized, body: nil),
            CurlRequest(
                method: "GET", path: "/1/apps/com.example.app/all-channels?x=1", headers: authorized, body: nil),
        ])
        #expect(answers.map(\.status) == [405, 405, 405, 405, 404, 404, 404, 404, 404], "\(answers.map(\.bodyText))")
        #expect(answers.prefix(4).allSatisfy { $0.reason == "MethodNotAllowed" })
        #expect(answers.suffix(5).allSatisfy { $0.reason == "BadPath" })
        #expect(try mock.stats().channels.requests["other"] == 4)
    }

    @Test(
        "a bundle id with a push-type suffix is 400 TopicDisallowed; an app without the Broadcast capability 400 FeatureNotEnabled"
    )
    func topicAndFeature() throws {
        let mock = try MockHarness(withoutBroadcast: ["com.plain.app"])
        defer { mock.stop() }
        let auth = mock.authorization
        let suffixed = "com.example.app.push-type.liveactivity"
        let answers = try mock.send([
            .createChannel(auth, bundleID: suffixed), .listChannels(auth, bundleID: suffixed),
            .createChannel(auth, bundleID: "com.plain.app"), .listChannels(auth, bundleID: "com.plain.app"),
            .channel("GET", "dW5rbm93bg==", auth, bundleID: "com.plain.app"),
        ])
        #expect(answers.map(\.status) == [400, 400, 400, 400, 400])
        #expect(
            answers.map(\.reason) == [
                "TopicDisallowed", "TopicDisallowed", "FeatureNotEnabled", "FeatureNotEnabled", "FeatureNotEnabled",
            ])
        #expect(try mock.send(.createChannel(auth)).status == 201)
    }

    @Test(
        "past the per-app limit a create is 400 CannotCreateChannelConfig; deleting one makes room; other apps have their own"
    )
    func channelLimit() throws {
        let mock = try MockHarness(maxChannelsPerApp: 2)
        defer { mock.stop() }
        let auth = mock.authorization
        let first = try mock.createChannel()
        _ = try mock.createChannel()
        let full = try mock.send(.createChannel(auth))
        #expect(full.status == 400)
        #expect(full.reason == "CannotCreateChannelConfig")
        #expect(try mock.send(.createChannel(auth, bundleID: "com.other.app")).status == 201)
        #expect(try mock.send(.channel("DELETE", first, auth)).status == 204)
        #expect(try mock.send(.createChannel(auth)).status == 201)
        let stats = try mock.stats()
        #expect(stats.channels.created == 4 && stats.channels.open == 3)
        #expect(stats.channels.reasons["CannotCreateChannelConfig"] == 1)
    }

    @Test(
        "credentials as for pushes: no token 403 MissingProviderToken, a bad one 403 InvalidProviderToken, a team's other app 400 TopicDisallowed"
    )
    func credentials() throws {
        let other = try SigningKey.generate()
        let otherCredential = try ProviderCredential(keyId: "TESTKEY002", teamId: "TESTTEAM02")
        let mock = try MockHarness(
            verifier: JWTVerifier(teams: [
                MockTeam(key: Fixture.key, credential: Fixture.credential, topics: ["com.example.app"]),
                MockTeam(key: other, credential: otherCredential, topics: ["com.other.app"]),
            ]))
        defer { mock.stop() }
        let answers = try mock.send([
            .createChannel(nil), .listChannels(nil),
            .createChannel(mock.authorization, bundleID: "com.other.app"), .createChannel(mock.authorization),
        ])
        #expect(answers.map(\.status) == [403, 403, 400, 201])
        #expect(answers.map(\.reason) == ["MissingProviderToken", "MissingProviderToken", "TopicDisallowed", nil])
        let invalid = try mock.send(.listChannels("bearer not.a.token"))
        #expect(invalid.status == 403 && invalid.reason == "InvalidProviderToken")
        let otherToken = try Fixture.authorization(key: other, credential: otherCredential)
        #expect(try mock.send(.createChannel(otherToken, bundleID: "com.other.app")).status == 201)
        #expect(try mock.stats().validationFailures["TopicDisallowed"]?.example == "com.other.app for team TESTTEAM01")
    }

    @Test(
        "a client certificate manages its own bundle id's channels; another app's is 400 TopicDisallowed, a bad certificate 403 BadCertificate"
    )
    func certificate() throws {
        let pki = FileManager.default.temporaryDirectory.appendingPathComponent(
            "APNsMockTests-pki-\(UUID().uuidString)"
        ).path
        let ca = try TestCertificateAuthority(in: pki)
        defer { try? FileManager.default.removeItem(atPath: ca.directory) }
        let mock = try MockHarness(
            environment: .development, clientCAPEM: try String(contentsOfFile: ca.certificatePEM, encoding: .utf8))
        defer { mock.stop() }
        let issued = try ca.issue(bundleID: "com.example.app", environments: [.development])
        let curl = mock.curl(presenting: .pem(certificate: issued.certPEM, key: issued.keyPEM))
        let answers = try curl.send([
            .createChannel(nil), .listChannels(nil), .createChannel(nil, bundleID: "com.other.app"),
        ])
        #expect(answers.map(\.status) == [201, 200, 400], "\(answers.map(\.bodyText))")
        #expect(answers[2].reason == "TopicDisallowed")
        let channel = try #require(answers[0].header("apns-channel-id"))
        let broadcast = try curl.send(.broadcast(channel, nil))
        #expect(broadcast.status == 200 && isCanonicalLowercaseUUID(broadcast.header("apns-unique-id")))
        let expired = try ca.issue(bundleID: "com.example.app", environments: [.development], daysValid: -1)
        let refused = try mock.curl(presenting: .pem(certificate: expired.certPEM, key: expired.keyPEM)).send(
            .listChannels(nil))
        #expect(refused.status == 403 && refused.reason == "BadCertificate")
    }

    @Test(
        "switching provider tokens too soon on a connection is 429 TooManyProviderTokenUpdates here too, and spoils the connection"
    )
    func tokenSwitch() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let fresh = try Fixture.authorization()
        let answers = try mock.send([
            .listChannels(mock.authorization), .listChannels(fresh), .listChannels(mock.authorization),
        ])
        #expect(answers.map(\.status) == [200, 429, 429])
        #expect(
            answers[1].reason == "TooManyProviderTokenUpdates" && answers[2].reason == "TooManyProviderTokenUpdates")
    }

    @Test("a repeated apns-channel-id is 400 DuplicateHeaders")
    func duplicateHeaders() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let id = try mock.createChannel()
        var request = CurlRequest.channel("GET", id, mock.authorization)
        request.headers.append(("apns-channel-id", id))
        let answer = try mock.send(request)
        #expect(answer.status == 400 && answer.reason == "DuplicateHeaders")
    }
}
