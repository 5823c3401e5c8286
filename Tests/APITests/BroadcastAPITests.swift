import Foundation
import TestSupport
import Testing

/// `POST /v1/broadcasts` over a real socket, with the worker beside the API, against the in-process apns-mock: mirrors
/// `apnsd send --channel`: 202 with the id, sent and logged; every refusal is 400 naming the field, writing nothing.
@Suite struct BroadcastAPITests {
    /// The update BroadcastCLITests sends.
    static let update = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":"2-1"}}}"#

    @Test func aBroadcastIsEnqueuedSentAndReadBackAndRefusalsWriteNothing() async throws {
        let setup = try await ChannelAPITests.Setup.start(worker: true)
        try await withCleanup(await setup.stop()) {
            let api = setup.api
            let created = try APITester.object(
                await api.call("POST", "/v1/channels", key: api.admin, json: #"{"storage":"none"}"#))
            let channelID = try #require(created["channelId"] as? String)

            for (body, field, says) in [
                (#"{"payload":\#(Self.update)}"#, "channel", "channel is required"),
                (#"{"channel":"7","payload":\#(Self.update)}"#, "channel", "no channel 7"),
                (
                    #"{"channel":"1","payload":\#(Self.update),"expiration":1900000000}"#, "expiration",
                    "must be 0"
                ),
                (
                    #"{"channel":"1","payload":{"aps":{"event":"start","timestamp":1,"content-state":{}}}}"#, "payload",
                    "updates or ends"
                ),
                (#"{"channel":"1","payload":\#(Self.update),"priority":7}"#, "priority", "priority"),
                (
                    #"{"channel":"1","payload":\#(Self.update),"collapseId":"c"}"#, "collapseId",
                    "collapse id"
                ),
                (#"{"channel":"1","payload":\#(Self.update),"token":"ab"}"#, "token", "token"),
            ] {
                let answer = await api.call("POST", "/v1/broadcasts", key: api.backend, json: body)
                let error = try APITester.error(answer)
                #expect(
                    answer.status == 400 && error["field"] as? String == field
                        && (error["message"] as? String)?.contains(says) == true,
                    "\(body): \(answer.status) \(answer.text)")
            }
            #expect(try await api.query("SELECT COUNT(*) FROM campaigns") == ["0"])
            #expect(
                await api.call(
                    "POST", "/v1/broadcasts", key: api.reader,
                    json: #"{"channel":"1","payload":\#(Self.update)}"#
                ).status == 403,
                "a read key may not send")

            // By the APNs id as well as the number; sent by the worker.
            let answer = await api.call(
                "POST", "/v1/broadcasts", key: api.backend,
                json: #"{"channel":"\#(channelID)","payload":\#(Self.update),"priority":5}"#)
            #expect(answer.status == 202, "\(answer.text)")
            let enqueued = try APITester.object(answer)
            #expect(enqueued["channel"] as? String == "1" && enqueued["deliveries"] as? Int == 1, "\(enqueued)")
            let id = try #require(enqueued["id"] as? String)
            var status: [String: Any] = [:]
            for _ in 0..<200 {
                status = try APITester.object(await api.call("GET", "/v1/notifications/\(id)", key: api.reader))
                if status["status"] as? String == "completed" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let deliveries = try #require(status["deliveries"] as? [[String: Any]])
            #expect(
                status["status"] as? String == "completed" && deliveries.first?["status"] as? String == "accepted",
                "\(status)")
            #expect(deliveries.first?["channel"] as? Int == 1 && deliveries.first?["token"] is NSNull)
            #expect(setup.server.stats().broadcasts(channel: channelID) == 1)
        }
    }
}
