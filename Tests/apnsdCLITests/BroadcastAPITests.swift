import Foundation
import Testing

/// `POST /v1/broadcasts` through `apnsd serve` (with its worker) against the in-process apns-mock: the route mirrors
/// `apnsd send --channel`: 202 with the id, sent and logged; every refusal is 400 naming the field, writing nothing.
@Suite(.offThePool) struct BroadcastAPITests {
    static let topic = ChannelCLITests.topic

    @Test func aBroadcastIsEnqueuedSentAndReadBackAndRefusalsWriteNothing() throws {
        var setup = try ChannelCLITests.setup()
        setup.cli.environment["APNSD_TOPIC"] = Self.topic
        defer { setup.stop() }
        let api = try APIHarness(cli: setup.cli, arguments: [], initialized: true)
        defer { api.stop() }
        let created = try APIHarness.object(
            try api.call("POST", "/v1/channels", key: api.admin, json: #"{"storage":"none"}"#))
        let channelID = try #require(created["channelId"] as? String)

        for (body, field, says) in [
            (#"{"payload":\#(BroadcastCLITests.update)}"#, "channel", "channel is required"),
            (#"{"channel":"7","payload":\#(BroadcastCLITests.update)}"#, "channel", "no channel 7"),
            (
                #"{"channel":"1","payload":\#(BroadcastCLITests.update),"expiration":1900000000}"#, "expiration",
                "must be 0"
            ),
            (
                #"{"channel":"1","payload":{"aps":{"event":"start","timestamp":1,"content-state":{}}}}"#, "payload",
                "updates or ends"
            ),
            (#"{"channel":"1","payload":\#(BroadcastCLITests.update),"priority":7}"#, "priority", "priority"),
            (
                #"{"channel":"1","payload":\#(BroadcastCLITests.update),"collapseId":"c"}"#, "collapseId",
                "collapse id"
            ),
            (#"{"channel":"1","payload":\#(BroadcastCLITests.update),"token":"ab"}"#, "token", "token"),
        ] {
            let answer = try api.call("POST", "/v1/broadcasts", key: api.backend, json: body)
            let error = try APIHarness.error(answer)
            #expect(
                answer.status == 400 && error["field"] as? String == field
                    && (error["message"] as? String)?.contains(says) == true,
                "\(body): \(answer.status) \(answer.body)")
        }
        #expect(try APIHarness.query(setup.cli.database, "SELECT COUNT(*) FROM campaigns") == ["0"])
        #expect(
            try api.call(
                "POST", "/v1/broadcasts", key: api.reader,
                json: #"{"channel":"1","payload":\#(BroadcastCLITests.update)}"#
            ).status == 403,
            "a read key may not send")

        // By the APNs id as well as the number; sent by serve's worker.
        let answer = try api.call(
            "POST", "/v1/broadcasts", key: api.backend,
            json: #"{"channel":"\#(channelID)","payload":\#(BroadcastCLITests.update),"priority":5}"#)
        #expect(answer.status == 202, "\(answer.body)")
        let enqueued = try APIHarness.object(answer)
        #expect(enqueued["channel"] as? String == "1" && enqueued["deliveries"] as? Int == 1, "\(enqueued)")
        let id = try #require(enqueued["id"] as? String)
        var status: [String: Any] = [:]
        for _ in 0..<200 {
            status = try APIHarness.object(try api.call("GET", "/v1/notifications/\(id)", key: api.reader))
            if status["status"] as? String == "completed" { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let deliveries = try #require(status["deliveries"] as? [[String: Any]])
        #expect(
            status["status"] as? String == "completed" && deliveries.first?["status"] as? String == "accepted",
            "\(status)")
        #expect(deliveries.first?["channel"] as? Int == 1 && deliveries.first?["token"] is NSNull)
        #expect(setup.server.stats().broadcasts(channel: channelID) == 1)
    }
}
