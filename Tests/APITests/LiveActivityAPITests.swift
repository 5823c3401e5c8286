import Foundation
import TestSupport
import Testing

/// `POST /v1/notifications`, `/v1/notifications/batch` and `/v1/campaigns` with `"pushType": "liveactivity"`
/// against the API with its worker, in process: every invalid variant is a 400 naming its field and writes nothing; a
/// valid start, update and end are accepted, and reach apns-mock (which checks the `.push-type.liveactivity`
/// topic) as 200s.
@Suite struct LiveActivityAPITests {
    static func body(token: String, payload: String, priority: Int? = nil, topic: String? = nil) -> String {
        var members = [#""token":"\#(token)""#, #""pushType":"liveactivity""#, #""payload":\#(payload)"#]
        if let priority { members.append(#""priority":\#(priority)"#) }
        if let topic { members.append(#""topic":"\#(topic)""#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test func refusedBeforeEnqueueAndDeliveredWhenValid() async throws {
        let api = try await APITester()
        let sending = try APITester.Sending(api)
        defer {
            Task {
                await sending.stop()
                await api.close()
            }
        }

        let before = try await api.written()
        for refusal in LiveActivityExamples.refusals {
            let single = Self.body(
                token: Tokens.hex(1), payload: refusal.payload, priority: refusal.priority, topic: refusal.topic)
            let refused = await api.call("POST", "/v1/notifications", key: api.backend, json: single)
            #expect(refused.status == 400, "\(refusal.name): \(refused.status) \(refused.text)")
            let error = try APITester.error(refused)
            #expect(
                error["code"] as? String == "invalid_request" && error["field"] as? String == refusal.field,
                "\(refusal.name): \(refused.text)")
            let message = try #require(error["message"] as? String)
            #expect(message.contains(refusal.says) && !message.contains("\n"), "\(refusal.name): \(message)")

            let batch = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json:
                    #"{"notifications":[\#(Self.body(token: Tokens.hex(2), payload: LiveActivityExamples.update)),\#(single)]}"#
            )
            let batchError = try APITester.error(batch)
            #expect(
                batch.status == 400 && batchError["index"] as? Int == 1
                    && batchError["field"] as? String == refusal.field,
                "\(refusal.name): \(batch.text)")

            var campaign = #"{"pushType":"liveactivity","payload":\#(refusal.payload),"audience":{"all":true}"#
            if let priority = refusal.priority { campaign += #","priority":\#(priority)"# }
            if let topic = refusal.topic { campaign += #","topic":"\#(topic)""# }
            let refusedCampaign = await api.call("POST", "/v1/campaigns", key: api.admin, json: campaign + "}")
            #expect(
                try refusedCampaign.status == 400
                    && (try APITester.error(refusedCampaign))["field"] as? String == refusal.field,
                "\(refusal.name): \(refusedCampaign.text)")
        }
        #expect(try await api.written() == before, "an invalid Live Activity push wrote something")

        // Push-to-start to one token, then an update and an end to the activity's token, each delivered once.
        var ids: [String] = []
        for (token, payload) in [
            (1, LiveActivityExamples.start), (2, LiveActivityExamples.update), (2, LiveActivityExamples.end),
        ] {
            let posted = await api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: Self.body(
                    token: Tokens.hex(token), payload: payload,
                    priority: payload == LiveActivityExamples.update ? 5 : nil))
            #expect(posted.status == 202, "\(posted.text)")
            ids.append(try #require(try APITester.object(posted)["id"] as? String))
        }
        for id in ids {
            var shown: [String: Any] = [:]
            let accepted = try await Poll.until(30) {
                shown = try APITester.object(await api.call("GET", "/v1/notifications/\(id)", key: api.reader))
                return (shown["deliveries"] as? [[String: Any]])?.first?["status"] as? String == "accepted"
            }
            #expect(accepted, "notification \(id) not accepted: \(shown)")
            #expect((shown["deliveries"] as? [[String: Any]])?.first?["httpStatus"] as? Int == 200, "\(shown)")
        }
        let stats = sending.server.stats()
        #expect(
            stats.count(token: Tokens.hex(1), status: 200) == 1
                && stats.count(token: Tokens.hex(2), status: 200) == 2, "\(stats.tokens)")
        #expect(stats.validationFailures.isEmpty, "the mock found a rule broken: \(stats.validationFailures)")

        let campaign = await api.call(
            "POST", "/v1/campaigns", key: api.admin,
            json:
                #"{"pushType":"liveactivity","priority":5,"payload":\#(LiveActivityExamples.update),"audience":{"tokens":["\#(Tokens.hex(2))"]}}"#
        )
        #expect(campaign.status == 201, "\(campaign.text)")
        let campaignID = try #require(try APITester.object(campaign)["id"] as? String)
        #expect(
            await Poll.until(30) {
                (try? APITester.object(await api.call("GET", "/v1/campaigns/\(campaignID)", key: api.reader)))?[
                    "status"] as? String == "completed"
            }, "campaign not completed")
        #expect(sending.server.stats().count(token: Tokens.hex(2), status: 200) == 3)
    }
}
