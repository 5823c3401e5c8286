import APNsMock
import Foundation
import TestSupport
import Testing

/// The simulator answers like APNs (docs/APNS.md "Request headers", "Responses"), seen by the curl CLI over TLS HTTP/2.
@Suite("Mock: requests over curl", .offThePool)
struct MockValidationTests {
    static let token = Fixture.token("0123456789abcdef")

    @Test("a valid push gets 200, an apns-id header that is a canonical UUID, and an empty body")
    func validPush() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let response = try mock.send(try mock.push(Self.token))
        #expect(response.status == 200)
        #expect(isCanonicalLowercaseUUID(response.header("apns-id")), "\(response.headers)")
        #expect(UUID(uuidString: response.header("apns-id") ?? "") != nil)
        #expect(response.body.isEmpty)
        #expect(try mock.stats().count(token: Self.token, status: 200) == 1)
    }

    @Test("a given apns-id is echoed back; different pushes without one get different ids")
    func apnsIDEcho() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let id = "5e3f2a10-8c4b-4d2e-9f1a-0b7c6d5e4f3a"
        let responses = try mock.send([
            try mock.push(Self.token, extra: [("apns-id", id)]), try mock.push(Self.token), try mock.push(Self.token),
        ])
        #expect(responses.map(\.status) == [200, 200, 200])
        #expect(responses[0].header("apns-id") == id)
        #expect(responses[1].header("apns-id") != responses[2].header("apns-id"))
        #expect(responses[1].header("apns-id") != id)
    }

    // MARK: Provider token

    @Test("a tampered signature is 403 InvalidProviderToken")
    func tamperedSignature() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        var segments = try Fixture.authorization().split(separator: ".").map(String.init)
        #expect(segments.count == 3)
        var signature = Array(segments[2])
        signature[10] = signature[10] == "A" ? "B" : "A"
        segments[2] = String(signature)
        let response = try mock.send(
            CurlRequest.push(token: Self.token, authorization: segments.joined(separator: ".")))
        #expect(response.status == 403)
        #expect(response.reason == "InvalidProviderToken")
    }

    @Test("a token naming another key id, another team or signed by another key is 403 InvalidProviderToken")
    func wrongCredentials() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let wrongKid = try Fixture.authorization(credential: .init(keyId: "OTHERKEY01", teamId: "TESTTEAM01"))
        let wrongTeam = try Fixture.authorization(credential: .init(keyId: "TESTKEY001", teamId: "OTHERTEAM1"))
        let otherKey = try Fixture.authorization(key: .generate())
        // Separate processes, so each check is on its own connection with a fresh token history.
        for authorization in [wrongKid, wrongTeam, otherKey] {
            let response = try mock.send(CurlRequest.push(token: Self.token, authorization: authorization))
            #expect(response.status == 403)
            #expect(response.reason == "InvalidProviderToken")
        }
    }

    @Test("a token issued two hours ago is 403 ExpiredProviderToken")
    func expiredToken() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let response = try mock.send(
            CurlRequest.push(token: Self.token, authorization: try Fixture.authorization(age: 2 * 3600)))
        #expect(response.status == 403)
        #expect(response.reason == "ExpiredProviderToken")
        #expect(response.json?["timestamp"] == nil)
    }

    @Test("no authorization header is 403 MissingProviderToken")
    func missingToken() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let response = try mock.send(CurlRequest.push(token: Self.token, authorization: nil))
        #expect(response.status == 403)
        #expect(response.reason == "MissingProviderToken")
    }

    // MARK: Request rules

    @Test("each broken rule gets Apple's status and reason", arguments: ValidationCase.all)
    func validation(testCase: ValidationCase) throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let request = testCase.request(try Fixture.authorization())
        let response = try mock.send(request)
        #expect(response.status == testCase.status, "\(response.bodyText)")
        #expect(response.reason == testCase.reason)
        if testCase.status == 200 {
            #expect(response.body.isEmpty)
        } else {
            // docs/APNS.md: timestamp only on 410.
            #expect(response.json?["timestamp"] == nil)
            #expect(response.json.map { Set($0.keys) } == ["reason"])
            let failures = try mock.stats().validationFailures
            #expect(failures[testCase.reason ?? ""]?.count == 1, "\(failures)")
        }
    }

    @Test(
        "duplicate headers sent by curl (-H twice) are 400 DuplicateHeaders",
        arguments: ["apns-topic", "apns-push-type", "apns-priority", "authorization"])
    func duplicateHeaders(name: String) throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let authorization = try Fixture.authorization()
        var request = CurlRequest.push(
            token: Self.token, authorization: authorization, extra: [("apns-priority", "10")])
        let value = request.headers.first { $0.name == name }!.value
        request.headers.append((name, value))
        let response = try mock.send(request)
        #expect(response.status == 400)
        #expect(response.reason == "DuplicateHeaders")
        #expect(try mock.stats().validationFailures["DuplicateHeaders"]?.example == name)
    }

    @Test("tokens in the path are case-insensitive and counted lowercase")
    func uppercaseToken() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let response = try mock.send(try mock.push(Self.token.uppercased()))
        #expect(response.status == 200)
        #expect(try mock.stats().count(token: Self.token, status: 200) == 1)
    }
}

/// One way of breaking (or just meeting) a rule, from docs/APNS.md, and what APNs answers.
struct ValidationCase: Sendable, CustomTestStringConvertible {
    let name: String
    let status: Int
    let reason: String?
    let request: @Sendable (_ authorization: String) -> CurlRequest

    var testDescription: String { "\(name) → \(status) \(reason ?? "")" }

    static let token = MockValidationTests.token

    static let all: [ValidationCase] = [
        ValidationCase(name: "alert payload of exactly 4096 bytes", status: 200, reason: nil) {
            .push(token: token, authorization: $0, body: alertPayload(bytes: 4096))
        },
        ValidationCase(name: "alert payload of 4097 bytes", status: 413, reason: "PayloadTooLarge") {
            .push(token: token, authorization: $0, body: alertPayload(bytes: 4097))
        },
        ValidationCase(name: "voip payload of 5000 bytes with the .voip topic", status: 200, reason: nil) {
            .push(
                token: token, topic: "com.example.app.voip", pushType: "voip", authorization: $0,
                body: alertPayload(bytes: 5000))
        },
        ValidationCase(name: "voip payload of 5121 bytes", status: 413, reason: "PayloadTooLarge") {
            .push(
                token: token, topic: "com.example.app.voip", pushType: "voip", authorization: $0,
                body: alertPayload(bytes: 5121))
        },
        ValidationCase(name: "voip push without the .voip topic suffix", status: 400, reason: "BadTopic") {
            .push(token: token, topic: "com.example.app", pushType: "voip", authorization: $0)
        },
        ValidationCase(name: "empty body", status: 400, reason: "PayloadEmpty") {
            .push(token: token, authorization: $0, body: [])
        },
        ValidationCase(name: "odd-length token", status: 400, reason: "BadDeviceToken") {
            .push(token: String(token.dropLast()), authorization: $0)
        },
        ValidationCase(name: "non-hex token", status: 400, reason: "BadDeviceToken") {
            .push(token: String(token.dropLast(2)) + "zz", authorization: $0)
        },
        ValidationCase(name: "no token in the path", status: 400, reason: "MissingDeviceToken") {
            .push(token: "", authorization: $0)
        },
        ValidationCase(name: "missing apns-topic", status: 400, reason: "MissingTopic") {
            .push(token: token, topic: nil, authorization: $0)
        },
        ValidationCase(name: "apns-priority 7", status: 400, reason: "BadPriority") {
            CurlRequest.push(token: token, authorization: $0).with("apns-priority", "7")
        },
        ValidationCase(name: "background push with apns-priority 10", status: 400, reason: "BadPriority") {
            CurlRequest.push(token: token, pushType: "background", authorization: $0).with("apns-priority", "10")
        },
        ValidationCase(name: "background push with apns-priority 1", status: 400, reason: "BadPriority") {
            CurlRequest.push(token: token, pushType: "background", authorization: $0).with("apns-priority", "1")
        },
        ValidationCase(name: "background push with apns-priority 5", status: 200, reason: nil) {
            CurlRequest.push(token: token, pushType: "background", authorization: $0).with("apns-priority", "5")
        },
        ValidationCase(name: "unknown apns-push-type", status: 400, reason: "InvalidPushType") {
            .push(token: token, pushType: "newsflash", authorization: $0)
        },
        ValidationCase(name: "apns-id that is not a UUID", status: 400, reason: "BadMessageId") {
            CurlRequest.push(token: token, authorization: $0).with("apns-id", "not-a-uuid")
        },
        ValidationCase(name: "apns-collapse-id of 64 bytes", status: 200, reason: nil) {
            CurlRequest.push(token: token, authorization: $0).with(
                "apns-collapse-id", String(repeating: "c", count: 64))
        },
        ValidationCase(name: "apns-collapse-id of 65 bytes", status: 400, reason: "BadCollapseId") {
            CurlRequest.push(token: token, authorization: $0).with(
                "apns-collapse-id", String(repeating: "c", count: 65))
        },
        ValidationCase(name: "apns-expiration that is not UNIX seconds", status: 400, reason: "BadExpirationDate") {
            CurlRequest.push(token: token, authorization: $0).with("apns-expiration", "tomorrow")
        },
        ValidationCase(name: "apns-expiration 0", status: 200, reason: nil) {
            CurlRequest.push(token: token, authorization: $0).with("apns-expiration", "0")
        },
        ValidationCase(name: "GET on a device path", status: 405, reason: "MethodNotAllowed") {
            CurlRequest(
                method: "GET", path: "/3/device/\(token)",
                headers: [("authorization", $0), ("apns-topic", "com.example.app")])
        },
        ValidationCase(name: "a path outside /3/device/", status: 404, reason: "BadPath") {
            var request = CurlRequest.push(token: token, authorization: $0)
            request.path = "/3/devices/\(token)"
            return request
        },
        ValidationCase(name: "an unknown header is ignored", status: 200, reason: nil) {
            CurlRequest.push(token: token, authorization: $0).with("x-something-new", "1")
        },
    ]
}
