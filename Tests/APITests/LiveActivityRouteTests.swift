import Foundation
import QueueModel
import TestSupport
import Testing

/// `PUT /v1/devices/{token}` with `kind` and `activityType`, `GET /v1/devices?kind=`, and campaigns whose audience
/// is the activities of a type, on a real store.
@Suite struct LiveActivityRouteTests {
    private let t1 = Tokens.hex(1)
    private let t2 = Tokens.hex(2)
    private let t3 = Tokens.hex(3)
    private static let update = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"eta":5}}}"#

    @Test func devicesAreRegisteredWithTheirKindsAndShown() async throws {
        let h = try await APITester()
        let key = try await h.key("app", [.send, .read])
        let plain = await h.call("PUT", "/v1/devices/\(t1)", #"{"user":"alice"}"#, key: key)
        #expect(
            plain.status == 201 && plain.json["kind"] as? String == "device" && plain.json["activityType"] is NSNull,
            "\(plain.text)")
        let update = await h.call(
            "PUT", "/v1/devices/\(t2)", #"{"user":"alice","kind":"activity","activityType":"DeliveryAttributes"}"#,
            key: key)
        #expect(update.status == 201, "\(update.text)")
        #expect(
            update.json["kind"] as? String == "activity"
                && update.json["activityType"] as? String == "DeliveryAttributes")
        let start = await h.call(
            "PUT", "/v1/devices/\(t3)",
            #"{"topic":"\#(APITester.topic).push-type.liveactivity","kind":"pushToStart","activityType":"DeliveryAttributes"}"#,
            key: key)
        #expect(
            start.status == 201 && start.json["topic"] as? String == APITester.topic,
            "stored under the bundle id: \(start.text)")

        let shown = await h.call("GET", "/v1/devices/\(t2)", key: key)
        #expect(
            shown.status == 200 && shown.json["kind"] as? String == "activity"
                && shown.json["activityType"] as? String == "DeliveryAttributes")
        let listed = await h.call("GET", "/v1/devices?kind=pushToStart", key: key)
        #expect((listed.json["devices"] as? [[String: Any]])?.map { $0["token"] as? String } == [t3], "\(listed.text)")
        let badList = await h.call("GET", "/v1/devices?kind=widget", key: key)
        #expect(badList.status == 400 && badList.errorField == "kind")

        // The same token again, with another kind: updated, 200.
        let changed = await h.call(
            "PUT", "/v1/devices/\(t2)", #"{"kind":"pushToStart","activityType":"RideAttributes"}"#, key: key)
        #expect(
            changed.status == 200 && changed.json["kind"] as? String == "pushToStart"
                && changed.json["activityType"] as? String == "RideAttributes")
        #expect(changed.json["user"] as? String == "alice")
        await h.close()
    }

    @Test func badKindsAre400sThatChangeNothing() async throws {
        let h = try await APITester()
        let key = try await h.key("app", [.send, .read])
        let cases: [(String, String)] = [
            (#"{"kind":"widget"}"#, "kind"),
            (#"{"kind":"activity"}"#, "activityType"),
            (#"{"kind":"pushToStart"}"#, "activityType"),
            (#"{"activityType":"DeliveryAttributes"}"#, "activityType"),
            (#"{"kind":"device","activityType":"DeliveryAttributes"}"#, "activityType"),
            (#"{"kind":"activity","activityType":"no spaces"}"#, "activityType"),
            (#"{"kind":"activity","activityType":""}"#, "activityType"),
            (#"{"kind":3}"#, "kind"),
        ]
        for (body, field) in cases {
            let reply = await h.call("PUT", "/v1/devices/\(t1)", body, key: key)
            #expect(
                reply.status == 400 && reply.errorCode == "invalid_request" && reply.errorField == field,
                "\(body): \(reply.text)")
        }
        #expect(try await h.store.deviceCount(active: nil) == 0)
        await h.close()
    }

    @Test func campaignsGoToTheActivitiesOfAType() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        #expect(await h.call("PUT", "/v1/devices/\(t1)", #"{"user":"alice"}"#, key: key).status == 201)
        #expect(
            await h.call(
                "PUT", "/v1/devices/\(t2)", #"{"user":"alice","kind":"activity","activityType":"DeliveryAttributes"}"#,
                key: key
            ).status == 201)
        #expect(
            await h.call(
                "PUT", "/v1/devices/\(t3)", #"{"user":"bob","kind":"activity","activityType":"DeliveryAttributes"}"#,
                key: key
            ).status == 201)

        let created = await h.call(
            "POST", "/v1/campaigns",
            #"""
            {"pushType":"liveactivity","payload":\#(Self.update),"audience":{"activityType":"DeliveryAttributes","users":["alice"]}}
            """#, key: key)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json["id"] as? String)
        let shown = await h.call("GET", "/v1/campaigns/\(id)", key: key)
        #expect(
            shown.json["activityType"] as? String == "DeliveryAttributes"
                && shown.json["activityKind"] as? String == "activity", "\(shown.text)")
        #expect(shown.json["audience"] as? String == "users" && shown.json["audienceSize"] as? Int == 1)
        _ = try await h.store.expandDueCampaigns(now: Date().addingTimeInterval(1), pageSize: 100, maxPages: 10)
        let log = try await h.store.log(LogFilter(campaign: CampaignID(Int64(id)!)), after: nil, limit: 10)
        #expect(log.compactMap(\.token?.hex) == [t2], "alice's update token only, not her device nor bob's activity")

        let starts = await h.call(
            "POST", "/v1/campaigns",
            #"""
            {"pushType":"liveactivity","payload":\#(Self.update),"audience":{"activityType":"DeliveryAttributes","kind":"pushToStart"}}
            """#, key: key)
        #expect(starts.status == 201, "\(starts.text)")
        await h.close()
    }

    @Test func badActivityAudiencesAre400sThatCreateNothing() async throws {
        let h = try await APITester()
        let key = try await h.key("app")
        let live = #""pushType":"liveactivity","payload":\#(Self.update)"#
        let cases: [(String, String)] = [
            (#"{"payload":\#(Self.update),"audience":{"activityType":"DeliveryAttributes"}}"#, "pushType"),
            (#"{\#(live),"audience":{"activityType":"DeliveryAttributes","kind":"device"}}"#, "audience.kind"),
            (#"{\#(live),"audience":{"activityType":"DeliveryAttributes","kind":"later"}}"#, "audience.kind"),
            (#"{\#(live),"audience":{"activityType":"9Lives"}}"#, "audience.activityType"),
            (#"{\#(live),"audience":{"activityType":"DeliveryAttributes","all":true}}"#, "audience"),
            (#"{\#(live),"audience":{"activityType":"DeliveryAttributes","tokens":["\#(t1)"]}}"#, "audience"),
            (#"{\#(live),"audience":{"all":true,"kind":"activity"}}"#, "audience.kind"),
            (
                #"{\#(live),"audience":{"activityType":"DeliveryAttributes","users":["alice"],"extra":1}}"#,
                "audience.extra"
            ),
        ]
        for (body, field) in cases {
            let reply = await h.call("POST", "/v1/campaigns", body, key: key)
            #expect(reply.status == 400 && reply.errorField == field, "\(body): \(reply.text)")
        }
        #expect(try await h.store.campaigns(kind: nil, status: nil, before: nil, limit: 10).isEmpty)
        await h.close()
    }
}
