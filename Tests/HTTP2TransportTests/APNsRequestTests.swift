import APNs
import HTTP2Transport
import Testing

@Suite struct APNsRequestTests {
    @Test func builtFromANotificationWithTheBearerTokenFirst() throws {
        let notification = try Notification(
            token: DeviceToken(String(repeating: "AB", count: 32)), topic: "com.example.app", pushType: .voip,
            expiration: Expiration(secondsSince1970: 1_700_000_000),
            id: NotificationID("0A0B0C0D-0000-4000-8000-000000000001"),
            collapseID: CollapseID("c1"), payload: Payload(json: #"{"aps":{}}"#))
        let request = APNsRequest(notification: notification, bearerToken: "eyJ.secret.sig")
        #expect(request.path == "/3/device/" + String(repeating: "ab", count: 32))
        #expect(
            request.headers.map(\.name) == [
                "authorization", "apns-topic", "apns-push-type", "apns-priority",
                "apns-expiration", "apns-collapse-id", "apns-id",
            ])
        #expect(request.headers[0].value == "bearer eyJ.secret.sig")
        #expect(request.headers[1].value == "com.example.app.voip")
        #expect(request.body == Array(#"{"aps":{}}"#.utf8))
    }

    @Test func withoutATokenThereIsNoAuthorizationHeader() throws {
        let notification = try Notification(
            token: DeviceToken("abcd"), topic: "t", payload: Payload(json: #"{"aps":{}}"#))
        #expect(
            !APNsRequest(notification: notification, bearerToken: nil).headers.contains { $0.name == "authorization" })
    }

    @Test func descriptionNeverShowsHeaderValuesAndShortensTheToken() throws {
        let notification = try Notification(
            token: DeviceToken(String(repeating: "cd", count: 32)), topic: "com.example.app",
            payload: Payload(json: #"{"aps":{}}"#))
        let text = APNsRequest(notification: notification, bearerToken: "eyJ.secret.sig").description
        #expect(!text.contains("secret"))
        #expect(!text.contains(String(repeating: "cd", count: 32)))
        #expect(text.contains("/3/device/cdcdcdcd…(64)"))
        #expect(text.contains("authorization"))
    }
}
