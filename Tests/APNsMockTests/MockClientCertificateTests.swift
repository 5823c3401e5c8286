import APNs
import APNsMock
import Foundation
import TestSupport
import Testing

/// Client-certificate connections: the TLS server asks for a certificate, and requests without a token are
/// judged by it as APNs judges Apple's push certificates.
@Suite("Mock: client certificates", .offThePool)
struct MockClientCertificateTests {
    static let token = Fixture.token("ce47")
    static let bundleID = "com.example.app"

    /// A development simulator that verifies client certificates against a fresh test CA.
    private func harness(environment: Environment = .development) throws -> (MockHarness, TestCertificateAuthority) {
        let pki = FileManager.default.temporaryDirectory.appendingPathComponent(
            "APNsMockTests-pki-\(UUID().uuidString)"
        ).path
        let ca = try TestCertificateAuthority(in: pki)
        let mock = try MockHarness(
            environment: environment, clientCAPEM: try String(contentsOfFile: ca.certificatePEM, encoding: .utf8))
        return (mock, ca)
    }

    private func pem(_ issued: TestCertificateAuthority.Issued) -> ClientCertificateFiles {
        .pem(certificate: issued.certPEM, key: issued.keyPEM)
    }

    private func push(topic: String? = bundleID, pushType: String = "alert", authorization: String? = nil)
        -> CurlRequest
    {
        CurlRequest.push(token: Self.token, topic: topic, pushType: pushType, authorization: authorization)
    }

    private func remove(_ ca: TestCertificateAuthority) { try? FileManager.default.removeItem(atPath: ca.directory) }

    @Test(
        "a development certificate: requests without a token are accepted for its bundle id, with a push-type suffix, or with no topic"
    )
    func accepted() throws {
        let (mock, ca) = try harness()
        defer {
            mock.stop()
            remove(ca)
        }
        let issued = try ca.issue(bundleID: Self.bundleID, environments: [.development])
        let answers = try mock.curl(presenting: pem(issued)).send([
            push(), push(topic: Self.bundleID + ".voip", pushType: "voip"), push(topic: nil),
        ])
        #expect(answers.map(\.status) == [200, 200, 200], "\(answers.map(\.bodyText))")
        #expect(answers.map(\.connects) == [1, 0, 0])
        #expect(isCanonicalLowercaseUUID(answers[0].header("apns-unique-id")))
    }

    @Test("the same certificate as a password-protected .p12 is accepted (OpenSSL 3 loads it)")
    func p12() throws {
        let (mock, ca) = try harness()
        defer {
            mock.stop()
            remove(ca)
        }
        let issued = try ca.issue(bundleID: Self.bundleID, environments: [.development])
        let answer = try mock.curl(presenting: .p12(path: issued.p12, password: issued.password)).send(push())
        #expect(answer.status == 200, "\(answer.bodyText) exit \(answer.exitCode)")
    }

    @Test("a topic that is not the certificate's bundle id: 400 TopicDisallowed")
    func topicDisallowed() throws {
        let (mock, ca) = try harness()
        defer {
            mock.stop()
            remove(ca)
        }
        let issued = try ca.issue(bundleID: Self.bundleID, environments: [.development])
        let answers = try mock.curl(presenting: pem(issued)).send([
            push(topic: "com.other.app"), push(topic: "com.example.app.extra"),
        ])
        #expect(answers.map(\.status) == [400, 400])
        #expect(answers.map(\.reason) == ["TopicDisallowed", "TopicDisallowed"])
        let failure = try #require(try mock.stats().validationFailures["TopicDisallowed"])
        #expect(failure.example == "com.other.app with a certificate for com.example.app")
    }

    @Test("a certificate from another CA, an expired one, or one that is no push certificate: 403 BadCertificate")
    func badCertificate() throws {
        let (mock, ca) = try harness()
        defer {
            mock.stop()
            remove(ca)
        }
        let stranger = try TestCertificateAuthority(in: ca.directory + "/stranger", name: "stranger")
        let certificates = [
            try stranger.issue(bundleID: Self.bundleID, environments: [.development]),
            try ca.issue(bundleID: Self.bundleID, environments: [.development], daysValid: -1),
            try ca.issue(bundleID: nil, environments: [.development]),
            try ca.issue(bundleID: Self.bundleID, environments: []),
        ]
        for issued in certificates {
            let answer = try mock.curl(presenting: pem(issued)).send(push())
            #expect(answer.status == 403, "\(issued.certPEM)")
            #expect(answer.reason == "BadCertificate", "\(issued.certPEM)")
        }
        #expect(try mock.stats().totals.reasons["BadCertificate"] == 4)
    }

    @Test(
        "a production certificate on a development host, and the reverse: 403 BadCertificateEnvironment; one for both works on both"
    )
    func environments() throws {
        for (host, wrong) in [
            (Environment.development, TestCertificateAuthority.Environment.production),
            (.production, .development),
        ] {
            let (mock, ca) = try harness(environment: host)
            defer {
                mock.stop()
                remove(ca)
            }
            let answer = try mock.curl(presenting: pem(try ca.issue(bundleID: Self.bundleID, environments: [wrong])))
                .send(push())
            #expect(answer.status == 403)
            #expect(answer.reason == "BadCertificateEnvironment")
            let both = try ca.issue(bundleID: Self.bundleID, environments: [.development, .production])
            #expect(try mock.curl(presenting: pem(both)).send(push()).status == 200)
        }
    }

    @Test("a request with an authorization header on a certificate connection is judged by its token")
    func tokenWins() throws {
        let (mock, ca) = try harness()
        defer {
            mock.stop()
            remove(ca)
        }
        let issued = try ca.issue(bundleID: Self.bundleID, environments: [.development])
        // The fixture team may push to any topic: the certificate's bundle id does not limit a token's request.
        let valid = try mock.curl(presenting: pem(issued)).send(
            push(topic: "com.other.app", authorization: mock.authorization))
        #expect(valid.status == 200)
        let invalid = try mock.curl(presenting: pem(issued)).send(push(authorization: "bearer not.a.token"))
        #expect(invalid.status == 403)
        #expect(invalid.reason == "InvalidProviderToken")
        // A bad certificate does not spoil a good token either.
        let expired = try ca.issue(bundleID: Self.bundleID, environments: [.development], daysValid: -1)
        #expect(try mock.curl(presenting: pem(expired)).send(push(authorization: mock.authorization)).status == 200)
    }

    @Test("no certificate and no token: 403 MissingProviderToken, with or without a client CA")
    func neither() throws {
        let (mock, ca) = try harness()
        defer {
            mock.stop()
            remove(ca)
        }
        let answer = try mock.send(push())
        #expect(answer.status == 403)
        #expect(answer.reason == "MissingProviderToken")
        // Without --client-ca no certificate is asked for: curl's goes unsent.
        let plain = try MockHarness()
        defer { plain.stop() }
        let issued = try ca.issue(bundleID: Self.bundleID, environments: [.development, .production])
        #expect(try plain.curl(presenting: pem(issued)).send(push()).reason == "MissingProviderToken")
    }
}
