import APNs
import Foundation
import TestSupport
import Testing

/// With `apns.credentials` listing every credential's topics, the enqueue routes refuse a topic no credential sends
/// (400, field `topic`, nothing written), and take a topic with a push type's suffix as its app's.
@Suite struct TopicRouteTests {
    @Test func aTopicNoCredentialSendsIsRefusedOnEveryEnqueueRoute() async throws {
        let h = try await APITester(topicRoutes: TopicRoutes(byBundleID: [APITester.topic: "ios"], fallback: nil))
        try await withCleanup(await h.close()) {
            let key = try await h.key("app", [.send, .read, .admin])
            let token = Tokens.hex(1)
            let payload = #""payload":{"aps":{"alert":"hi"}}"#
            let refused = [
                ("/v1/notifications", #"{"token":"\#(token)","topic":"com.example.other",\#(payload)}"#),
                ("/v1/campaigns", #"{"audience":{"all":true},"topic":"com.example.other",\#(payload)}"#),
                (
                    "/v1/notifications/batch",
                    #"{"notifications":[{"token":"\#(token)",\#(payload)},{"token":"\#(token)","topic":"com.example.other",\#(payload)}]}"#
                ),
            ]
            for (route, body) in refused {
                let reply = await h.call("POST", route, body, key: key)
                #expect(reply.status == 400 && reply.errorField == "topic", "\(route): \(reply.text)")
                #expect(
                    reply.text.contains("no credential sends for topic 'com.example.other'"), "\(route): \(reply.text)")
            }
            #expect(try await h.store.campaigns(kind: .single, status: nil, before: nil, limit: 10).isEmpty)
            #expect(try await h.store.campaigns(kind: .bulk, status: nil, before: nil, limit: 10).isEmpty)
            let voip = await h.call(
                "POST", "/v1/notifications",
                #"{"token":"\#(token)","topic":"com.example.app.voip","pushType":"voip",\#(payload)}"#, key: key)
            #expect(voip.status == 202, "\(voip.text)")
        }
    }
}
