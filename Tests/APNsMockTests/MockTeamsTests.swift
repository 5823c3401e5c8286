import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// Several teams on one simulator: each token is checked against the key its kid names, and a team that lists
/// topics may push only to those.
@Suite("Mock: several teams", .offThePool)
struct MockTeamsTests {
    static let token = Fixture.token("7ea")
    static let otherCredential = try! ProviderCredential(keyId: "TESTKEY002", teamId: "TESTTEAM02")
    static let openCredential = try! ProviderCredential(keyId: "TESTKEY003", teamId: "TESTTEAM03")

    /// Team 1 (the fixture key) may push to com.example.app, team 2 to com.other.app, team 3 anywhere.
    private func harness() throws -> (MockHarness, other: SigningKey, open: SigningKey) {
        let other = try SigningKey.generate()
        let open = try SigningKey.generate()
        let verifier = JWTVerifier(teams: [
            MockTeam(key: Fixture.key, credential: Fixture.credential, topics: ["com.example.app"]),
            MockTeam(key: other, credential: Self.otherCredential, topics: ["com.other.app"]),
            MockTeam(key: open, credential: Self.openCredential),
        ])
        return (try MockHarness(verifier: verifier), other, open)
    }

    private func push(_ authorization: String, topic: String, pushType: String = "alert") -> CurlRequest {
        CurlRequest.push(token: Self.token, topic: topic, pushType: pushType, authorization: authorization)
    }

    @Test(
        "each team's token is accepted on its own topics (push-type suffix allowed) and refused 400 TopicDisallowed on the other's"
    )
    func topicsPerTeam() throws {
        let (mock, other, _) = try harness()
        defer { mock.stop() }
        let first = try Fixture.authorization()
        let second = try Fixture.authorization(key: other, credential: Self.otherCredential)
        // One connection per team: switching tokens on a connection is limited.
        let firstAnswers = try mock.send([
            push(first, topic: "com.example.app"), push(first, topic: "com.example.app.voip", pushType: "voip"),
            push(first, topic: "com.other.app"), push(first, topic: "com.other.app"),
            push(first, topic: "com.example.app"),
        ])
        #expect(firstAnswers.map(\.status) == [200, 200, 400, 400, 200])
        #expect(firstAnswers[2].reason == "TopicDisallowed")
        let secondAnswers = try mock.send([
            push(second, topic: "com.other.app"), push(second, topic: "com.example.app"),
            push(second, topic: "com.other.app.push-type.liveactivity", pushType: "liveactivity"),
        ])
        #expect(secondAnswers.map(\.status) == [200, 400, 200])
        #expect(secondAnswers[1].reason == "TopicDisallowed")
        // A topic that merely starts with an allowed bundle id is another app.
        #expect(try mock.send(push(first, topic: "com.example.app2")).reason == "TopicDisallowed")
        let stats = try mock.stats()
        #expect(stats.totals.reasons["TopicDisallowed"] == 4)
        let failure = try #require(stats.validationFailures["TopicDisallowed"])
        #expect(failure.count == 4)
        #expect(failure.example == "com.other.app for team TESTTEAM01")
    }

    @Test("a team's topics are bundle ids: a topic counts with one known push-type suffix removed")
    func allows() throws {
        let team = MockTeam(key: Fixture.key, credential: Fixture.credential, topics: ["com.example.app"])
        for topic in [
            "com.example.app", "com.example.app.voip", "com.example.app.voip-ptt", "com.example.app.complication",
            "com.example.app.pushkit.fileprovider", "com.example.app.push-type.liveactivity",
            "com.example.app.location-query", "com.example.app.push-type.controls", "com.example.app.push-type.widgets",
        ] {
            #expect(team.allows(topic: topic), "\(topic)")
        }
        for topic in ["com.example", "com.example.app.voip.voip", "com.example.apps", ".voip", "com.other.app.voip"] {
            #expect(!team.allows(topic: topic), "\(topic)")
        }
        #expect(MockTeam(key: Fixture.key, credential: Fixture.credential).allows(topic: "any.thing"))
    }

    @Test("a team that lists no topics may push to any")
    func openTeam() throws {
        let (mock, _, open) = try harness()
        defer { mock.stop() }
        let authorization = try Fixture.authorization(key: open, credential: Self.openCredential)
        let answers = try mock.send([
            push(authorization, topic: "com.example.app"), push(authorization, topic: "org.anything.else"),
        ])
        #expect(answers.map(\.status) == [200, 200])
    }

    @Test("a kid naming no configured key, or an iss other than that key's team: 403 InvalidProviderToken")
    func unknownKeyOrWrongTeam() throws {
        let (mock, other, _) = try harness()
        defer { mock.stop() }
        let unknownKid = try Fixture.authorization(
            credential: try ProviderCredential(keyId: "UNKNOWN001", teamId: "TESTTEAM01"))
        let wrongTeam = try Fixture.authorization(
            key: other, credential: try ProviderCredential(keyId: "TESTKEY002", teamId: "TESTTEAM01"))
        // Team 2's kid on a token signed with team 1's key.
        let wrongKey = try Fixture.authorization(credential: Self.otherCredential)
        for authorization in [unknownKid, wrongTeam, wrongKey] {
            let answer = try mock.send(push(authorization, topic: "com.example.app"))
            #expect(answer.status == 403)
            #expect(answer.reason == "InvalidProviderToken")
        }
        #expect(try mock.stats().totals.reasons["InvalidProviderToken"] == 3)
    }
}
