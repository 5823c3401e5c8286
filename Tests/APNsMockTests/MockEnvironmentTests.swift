import APNs
import APNsMock
import Foundation
import TestSupport
import Testing

/// The host the simulator plays: development (Apple's sandbox) adds apns-unique-id to its 200s, production not.
@Suite("Mock: environment", .offThePool)
struct MockEnvironmentTests {
    static let token = Fixture.token("e7")

    @Test("production (the default): a 200 carries apns-id and no apns-unique-id")
    func production() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let answer = try mock.send(try mock.push(Self.token))
        #expect(answer.status == 200)
        #expect(isCanonicalLowercaseUUID(answer.header("apns-id")))
        #expect(answer.headers["apns-unique-id"] == nil)
    }

    @Test("development: every 200 carries its own apns-unique-id UUID; errors do not")
    func development() throws {
        let mock = try MockHarness(environment: .development)
        defer { mock.stop() }
        let answers = try mock.send([
            try mock.push(Self.token), try mock.push(Self.token), try mock.push(Self.token).without("apns-topic"),
        ])
        #expect(answers.map(\.status) == [200, 200, 400])
        let ids = answers.prefix(2).map { $0.header("apns-unique-id") }
        #expect(ids.allSatisfy(isCanonicalLowercaseUUID), "\(ids)")
        #expect(ids[0] != ids[1])
        #expect(ids[0] != answers[0].header("apns-id"))
        #expect(answers[0].headers["apns-unique-id"]?.count == 1)
        #expect(answers[2].headers["apns-unique-id"] == nil)
    }
}
