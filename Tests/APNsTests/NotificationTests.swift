import APNs
import Testing

@Suite("Notification")
struct NotificationTests {
    let token: DeviceToken
    let payload: Payload

    init() throws {
        token = try DeviceToken(String(repeating: "ab", count: 32))
        payload = try Payload(json: #"{"aps":{"alert":"hi"}}"#)
    }

    private func header(_ notification: APNs.Notification, _ name: String) -> [String] {
        notification.headers.filter { $0.name == name }.map(\.value)
    }

    @Test("headers carry the topic, push type, priority, expiration, id and collapse id")
    func headers() throws {
        let id = try NotificationID("123E4567-E89B-12D3-A456-426614174000")
        let notification = try APNs.Notification(
            token: token, topic: "com.example.app", pushType: .alert, priority: .low,
            expiration: Expiration(secondsSince1970: 1_700_000_000), id: id, collapseID: CollapseID("game-42"),
            payload: payload)
        #expect(header(notification, "apns-topic") == ["com.example.app"])
        #expect(header(notification, "apns-push-type") == ["alert"])
        #expect(header(notification, "apns-priority") == ["1"])
        #expect(header(notification, "apns-expiration") == ["1700000000"])
        #expect(header(notification, "apns-id") == ["123e4567-e89b-12d3-a456-426614174000"])
        #expect(header(notification, "apns-collapse-id") == ["game-42"])
        #expect(notification.headers.count == 6)
        #expect(header(notification, "authorization").isEmpty)
        #expect(notification.path == "/3/device/" + String(repeating: "ab", count: 32))
    }

    @Test("optional headers are left out; priority 10 is the default for alert")
    func minimal() throws {
        let notification = try APNs.Notification(token: token, topic: "com.example.app", payload: payload)
        #expect(Set(notification.headers.map(\.name)) == ["apns-topic", "apns-push-type", "apns-priority"])
        #expect(header(notification, "apns-priority") == ["10"])
        #expect(header(notification, "apns-push-type") == ["alert"])
    }

    @Test(
        "the topic suffix is applied for the push type, once",
        arguments: [
            (PushType.voip, "com.example.app", "com.example.app.voip"),
            (.voip, "com.example.app.voip", "com.example.app.voip"),
            (.liveactivity, "com.example.app", "com.example.app.push-type.liveactivity"),
            (.complication, "com.example.app", "com.example.app.complication"),
            (.alert, "com.example.app", "com.example.app"),
            (.background, "com.example.app", "com.example.app"),
        ])
    func topicSuffix(type: PushType, bundle: String, topic: String) throws {
        let notification = try APNs.Notification(token: token, topic: bundle, pushType: type, payload: payload)
        #expect(notification.topic == topic)
        #expect(header(notification, "apns-topic") == [topic])
        #expect(header(notification, "apns-push-type") == [type.rawValue])
    }

    @Test("background pushes default to priority 5 and refuse 10")
    func background() throws {
        let notification = try APNs.Notification(
            token: token, topic: "com.example.app", pushType: .background, payload: payload)
        #expect(notification.content.priority == .conservePower)
        #expect(header(notification, "apns-priority") == ["5"])
        #expect(throws: APNsError.priorityNotAllowed(.immediate, .background)) {
            try APNs.Notification(
                token: token, topic: "com.example.app", pushType: .background, priority: .immediate, payload: payload)
        }
    }

    @Test("a payload too large for the push type is refused")
    func payloadSize() throws {
        let big = try Payload(json: alertJSON(bytes: 5000), pushType: .voip)
        _ = try APNs.Notification(token: token, topic: "com.example.app", pushType: .voip, payload: big)
        #expect(throws: APNsError.payloadTooLarge(bytes: 5000, limit: 4096)) {
            try APNs.Notification(token: token, topic: "com.example.app", pushType: .alert, payload: big)
        }
    }

    @Test(
        "an empty or spaced topic is refused, whatever suffix the push type adds",
        arguments: [
            ("", PushType.alert), ("", .voip), ("", .liveactivity), ("com.example app", .alert),
            ("com.example.app\n", .alert),
            ("com.example app", .voip),
        ])
    func badTopic(topic: String, type: PushType) {
        #expect {
            try APNs.Notification(token: token, topic: topic, pushType: type, payload: payload)
        } throws: { error in
            guard let error = error as? APNsError, case .invalidTopic = error else { return false }
            return true
        }
    }
}
