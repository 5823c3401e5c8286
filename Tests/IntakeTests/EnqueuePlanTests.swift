import APNs
import Foundation
import Intake
import QueueModel
import Testing

/// The one producer path: a plan validated once (fields, the audience's rules, the topic's route), each refusal
/// naming what it is about, and the spec it gives carrying the environment the fields chose.
@Suite struct EnqueuePlanTests {
    static let alert = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
    static let update = Array(#"{"aps":{"event":"update","timestamp":1765000060,"content-state":{}}}"#.utf8)
    static let token = try! DeviceToken(String(repeating: "ab", count: 32))

    func failure(
        _ kind: CampaignKind, _ audience: Audience, pushType: String? = nil, payload: [UInt8] = alert,
        routes: TopicRoutes? = nil
    ) -> EnqueuePlan.Failure? {
        let fields = NotificationInput(topic: "com.example.app", pushType: pushType, payload: payload)
        do {
            _ = try EnqueuePlan(kind: kind, fields: fields, audience: audience)
                .validate(defaultTopic: nil, routes: routes, now: Date(timeIntervalSince1970: 1_765_000_000))
            return nil
        } catch { return error }
    }

    @Test func aValidPlanGivesTheSpecWithTheFieldsEnvironment() throws {
        let fields = NotificationInput(
            pushType: "alert", priority: 5, expiration: 0, environment: "development", payload: Self.alert)
        let spec = try EnqueuePlan(kind: .single, fields: fields, audience: .tokens([Self.token]))
            .validate(defaultTopic: "com.example.app", routes: .only("default"))
        #expect(spec.audience == .tokens([Self.token], environment: .development))
        #expect(spec.content.bundleID == "com.example.app" && spec.content.priority == .conservePower)
        #expect(spec.content.expiration == .immediately && spec.kind == .single && spec.isValid)
    }

    @Test func aFieldsOwnRuleNamesTheField() {
        let fields = NotificationInput(topic: "com.example.app", priority: 7, payload: Self.alert)
        do {
            _ = try EnqueuePlan(kind: .single, fields: fields, audience: .tokens([Self.token]))
                .validate(defaultTopic: nil, routes: nil)
            Issue.record("priority 7 was accepted")
        } catch {
            #expect(error.field == .notification(.priority) && error.rule == nil)
        }
    }

    @Test func theAudiencesRulesNameWhatTheyAreAbout() {
        let single = failure(.single, .all())
        #expect(single?.field == .audience && single?.rule == .audience)
        #expect(single?.message.contains("not to all devices") == true)
        let usersOfALiveActivity = failure(.bulk, .users(["u1"]), pushType: "liveactivity", payload: Self.update)
        #expect(usersOfALiveActivity?.field == .audience)
        #expect(failure(.bulk, .activities(type: "Delivery"))?.field == .notification(.pushType))
        #expect(
            failure(
                .bulk, .activities(type: "Delivery", kind: .device), pushType: "liveactivity", payload: Self.update)?
                .field == .audienceKind)
        #expect(
            failure(.bulk, .activities(type: "not a type"), pushType: "liveactivity", payload: Self.update)?.field
                == .activityType)
        #expect(
            failure(.single, .activities(type: "Delivery"), pushType: "liveactivity", payload: Self.update)?.field
                == .audience)
        #expect(failure(.bulk, .activities(type: "Delivery"), pushType: "liveactivity", payload: Self.update) == nil)
    }

    @Test func aTopicNoCredentialSendsIsRefusedOnItsField() {
        let routes = TopicRoutes(byBundleID: ["com.example.other": "other"], fallback: nil)
        let refused = failure(.single, .tokens([Self.token]), routes: routes)
        #expect(refused?.field == .notification(.topic))
        #expect(refused?.message.hasPrefix("no credential sends for topic 'com.example.app'") == true)
        #expect(failure(.single, .tokens([Self.token]), routes: .only("default")) == nil)
    }
}
