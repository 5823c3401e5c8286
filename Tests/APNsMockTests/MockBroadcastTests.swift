import APNs
import APNsMock
import Foundation
import TestSupport
import Testing

/// Broadcast sends on the simulator (`POST /4/broadcasts/apps/<bundle>`): accepted on a channel it holds, refused
/// with Apple's reasons otherwise, and counted per channel.
@Suite("Mock: broadcast sends", .offThePool)
struct MockBroadcastTests {
    static let requestID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

    @Test(
        "a broadcast to a stored-message channel, with an expiration, is 200 with the apns-request-id echoed; the stats count it on its channel"
    )
    func acceptedWithExpiration() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let stored = try mock.createChannel(policy: 1)
        let other = try mock.createChannel(policy: 1)
        let later = String(Int(Date().timeIntervalSince1970) + 3600)
        let answers = try mock.send([
            .broadcast(
                stored, mock.authorization, extra: [("apns-expiration", later), ("apns-request-id", Self.requestID)]),
            .broadcast(stored, mock.authorization, extra: [("apns-expiration", "0")]),
            .broadcast(stored, mock.authorization),
            .broadcast(other, mock.authorization),
        ])
        #expect(answers.map(\.status) == [200, 200, 200, 200], "\(answers.map(\.bodyText))")
        #expect(answers[0].header("apns-request-id") == Self.requestID)
        #expect(isCanonicalLowercaseUUID(answers[2].header("apns-request-id")))
        #expect(answers.allSatisfy { $0.body.isEmpty && $0.header("apns-unique-id") == nil })
        let stats = try mock.stats()
        #expect(stats.broadcasts(channel: stored) == 3)
        #expect(stats.broadcasts(channel: other) == 1)
        #expect(stats.channels.broadcastsAccepted == 4)
        #expect(stats.channels.requests["broadcast"] == 4)
        #expect(stats.totals.statuses["200"] == 4)
    }

    @Test("a no-storage channel takes apns-expiration 0 or none, and refuses any other with 400 BadExpirationDate")
    func noStorageExpiration() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let channel = try mock.createChannel(policy: 0)
        let later = String(Int(Date().timeIntervalSince1970) + 3600)
        let answers = try mock.send([
            .broadcast(channel, mock.authorization, extra: [("apns-expiration", "0")]),
            .broadcast(channel, mock.authorization),
            .broadcast(channel, mock.authorization, extra: [("apns-expiration", later)]),
        ])
        #expect(answers.map(\.status) == [200, 200, 400])
        #expect(answers[2].reason == "BadExpirationDate")
        let stats = try mock.stats()
        #expect(stats.broadcasts(channel: channel) == 2)
        #expect(stats.channels.reasons == ["BadExpirationDate": 1])
        #expect(
            stats.validationFailures["BadExpirationDate"]?.example
                == "apns-expiration \(later) on a channel that stores no message")
    }

    @Test("each broadcast error reason")
    func errors() throws {
        let mock = try MockHarness(withoutBroadcast: ["com.plain.app"])
        defer { mock.stop() }
        let auth = mock.authorization
        let channel = try mock.createChannel()
        let deleted = try mock.createChannel()
        #expect(try mock.send(.channel("DELETE", deleted, auth)).status == 204)
        let cases: [(CurlRequest, Int, String)] = [
            (.broadcast(nil, auth), 400, "MissingChannelId"),
            (.broadcast("not base64!", auth), 400, "BadChannelId"),
            (.broadcast("dW5rbm93bg==", auth), 400, "ChannelNotRegistered"),
            (.broadcast(deleted, auth), 400, "ChannelNotRegistered"),
            (.broadcast(channel, auth, bundleID: "com.other.app"), 400, "ChannelNotRegistered"),
            (CurlRequest.broadcast(channel, auth).without("apns-push-type"), 400, "MissingPushType"),
            (CurlRequest.broadcast(channel, auth).with("apns-push-type", "alert"), 400, "InvalidPushType"),
            (CurlRequest.broadcast(channel, auth).with("apns-priority", "7"), 400, "BadPriority"),
            (CurlRequest.broadcast(channel, auth).with("apns-expiration", "soon"), 400, "BadExpirationDate"),
            (CurlRequest.broadcast(channel, auth).with("apns-request-id", "42"), 400, "BadMessageId"),
            (.broadcast(channel, auth, body: alertPayload(bytes: 5121)), 413, "PayloadTooLarge"),
            (.broadcast(channel, auth, body: nil), 400, "PayloadEmpty"),
            (.broadcast(channel, auth, body: Array("not json".utf8)), 400, "BadRequestPayload"),
            (.broadcast(channel, auth, body: Array(#"{"alert":"hi"}"#.utf8)), 400, "BadRequestPayload"),
            (.broadcast(channel, auth, body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)), 400, "BadRequestPayload"),
            (
                .broadcast(channel, auth, body: Array(#"{"aps":{"event":"start","timestamp":1}}"#.utf8)), 400,
                "BadRequestPayload"
            ),
            (.broadcast(channel, auth, bundleID: "com.example.app.push-type.liveactivity"), 400, "TopicDisallowed"),
            (.broadcast(channel, auth, bundleID: "com.plain.app"), 400, "FeatureNotEnabled"),
            (.broadcast(channel, nil), 403, "MissingProviderToken"),
            (
                CurlRequest(
                    method: "GET", path: "/4/broadcasts/apps/com.example.app", headers: [("authorization", auth)],
                    body: nil),
                405, "MethodNotAllowed"
            ),
        ]
        let answers = try mock.send(cases.map(\.0))
        for (answer, expected) in zip(answers, cases) {
            #expect(
                answer.status == expected.1 && answer.reason == expected.2,
                "expected \(expected.2), got \(answer.status) \(answer.bodyText)")
            #expect(isCanonicalLowercaseUUID(answer.header("apns-request-id")))
        }
        let stats = try mock.stats()
        #expect(stats.broadcasts(channel: channel) == 0)
        #expect(stats.channels.reasons["ChannelNotRegistered"] == 3)
        #expect(stats.channels.reasons["BadRequestPayload"] == 4)
        #expect(stats.validationFailures["BadRequestPayload"]?.example == "the payload is not a JSON object")
    }

    @Test("accepted: push type in any case, priority 10, 5 or 1, an end event, a payload of exactly 5120 bytes")
    func acceptedVariants() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let auth = mock.authorization
        let channel = try mock.createChannel()
        let padding = String(
            repeating: "x", count: 5120 - #"{"aps":{"event":"update","timestamp":1764460800},"p":""}"#.utf8.count)
        let big = Array(#"{"aps":{"event":"update","timestamp":1764460800},"p":"\#(padding)"}"#.utf8)
        #expect(big.count == 5120)
        let answers = try mock.send([
            CurlRequest.broadcast(channel, auth).with("apns-push-type", "liveactivity"),
            CurlRequest.broadcast(channel, auth).with("apns-push-type", "LIVEACTIVITY"),
            CurlRequest.broadcast(channel, auth).with("apns-priority", "5"),
            CurlRequest.broadcast(channel, auth).with("apns-priority", "1"),
            .broadcast(
                channel, auth,
                body: Array(#"{"aps":{"event":"end","timestamp":1764460800,"dismissal-date":1764464400}}"#.utf8)),
            .broadcast(channel, auth, body: big),
        ])
        #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200], "\(answers.map(\.bodyText))")
        #expect(try mock.stats().broadcasts(channel: channel) == 6)
    }

    @Test("development: a broadcast's 200 carries apns-unique-id, as a push's does")
    func developmentUniqueID() throws {
        let mock = try MockHarness(environment: .development)
        defer { mock.stop() }
        let channel = try mock.createChannel()
        let answer = try mock.send(.broadcast(channel, mock.authorization))
        #expect(answer.status == 200)
        #expect(isCanonicalLowercaseUUID(answer.header("apns-unique-id")))
    }

    @Test("a scenario's broadcasts failTimes fails each channel of the app that many times, then accepts")
    func scriptedFailures() throws {
        let mock = try MockHarness(
            scenario: Scenario(broadcasts: [
                "com.example.app": BroadcastBehaviour(failTimes: 2, failStatus: 429),
                "com.down.app": BroadcastBehaviour(failTimes: 1, failStatus: 503),
            ]))
        defer { mock.stop() }
        let auth = mock.authorization
        let first = try mock.createChannel()
        let second = try mock.createChannel()
        let down = try mock.createChannel(bundleID: "com.down.app")
        let answers = try mock.send([
            .broadcast(first, auth), .broadcast(first, auth), .broadcast(first, auth),
            .broadcast(second, auth), .broadcast(down, auth, bundleID: "com.down.app"),
            .broadcast(down, auth, bundleID: "com.down.app"),
        ])
        #expect(answers.map(\.status) == [429, 429, 200, 429, 503, 200])
        #expect(answers[0].reason == "TooManyRequests" && answers[4].reason == "ServiceUnavailable")
        let stats = try mock.stats()
        #expect(
            stats.broadcasts(channel: first) == 1 && stats.broadcasts(channel: second) == 0
                && stats.broadcasts(channel: down) == 1)
        #expect(stats.channels.reasons == ["TooManyRequests": 3, "ServiceUnavailable": 1])
    }

    @Test(
        "device pushes and broadcasts share a connection; a push keeps its apns-id answer and a broadcast its apns-request-id"
    )
    func sharedListener() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let channel = try mock.createChannel()
        let answers = try mock.send([
            try mock.push(Fixture.token("b0")), .broadcast(channel, mock.authorization),
            try mock.push(Fixture.token("b1")),
        ])
        #expect(answers.map(\.status) == [200, 200, 200])
        #expect(answers.map(\.connects) == [1, 0, 0])
        #expect(isCanonicalLowercaseUUID(answers[0].header("apns-id")) && answers[0].header("apns-request-id") == nil)
        #expect(answers[1].header("apns-id") == nil && isCanonicalLowercaseUUID(answers[1].header("apns-request-id")))
    }
}
