import APNs
import Foundation
import Intake
import Testing

/// docs/APNS.md, "Live Activities through device tokens": every rule of a liveactivity payload, each broken once,
/// with the exact line the sender reads; and start, update and end payloads that pass.
@Suite struct LiveActivityPayloadTests {
    static let update = #""event":"update","timestamp":1765000060,"content-state":{"score":"1-0"}"#
    static let start =
        #""event":"start","timestamp":1765000000,"content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"Lyon","away":"Nantes"},"alert":{"title":"Kick-off","body":"Lyon v Nantes"}"#
    static let end = #""event":"end","timestamp":1765005400"#

    static func payload(_ aps: String, extra: String = "") throws -> Payload {
        try Payload(json: #"{"aps":{\#(aps)}\#(extra)}"#, pushType: .liveactivity)
    }

    static let valid: [(String, LiveActivityPayload.Event, Int64)] = [
        (start, .start, 1_765_000_000),
        (start + #","input-push-token":1"#, .start, 1_765_000_000),
        (start + #","input-push-channel":"dHN0LXNyY2gtY2hubA==""#, .start, 1_765_000_000),
        (start + #","input-push-token":1,"input-push-channel":"AAAA""#, .start, 1_765_000_000),
        (start + #","stale-date":1765003600,"relevance-score":100"#, .start, 1_765_000_000),
        (update, .update, 1_765_000_060),
        (
            update
                + #","stale-date":1765003660,"relevance-score":0.5,"alert":{"title":"Goal","body":"1-0","sound":"default"}"#,
            .update, 1_765_000_060
        ),
        (update + #","stale-date":0"#, .update, 1_765_000_060),
        (#""event":"update","timestamp":99999999999,"content-state":{}"#, .update, 99_999_999_999),
        (end, .end, 1_765_005_400),
        (end + #","content-state":{"score":"2-1"},"dismissal-date":1765009000"#, .end, 1_765_005_400),
        (end + #","dismissal-date":0"#, .end, 1_765_005_400),
        (#""content-state":{},"timestamp":1765000060,"sound":"default","event":"update""#, .update, 1_765_000_060),
    ]

    @Test(arguments: valid.indices)
    func accepted(index: Int) throws {
        let (aps, event, timestamp) = Self.valid[index]
        let checked = try LiveActivityPayload(payload: try Self.payload(aps, extra: #","matchID":"m-1""#))
        #expect(checked.event == event && checked.timestamp == timestamp)
    }

    static let refused: [(String, String)] = [
        (
            #""timestamp":1765000060,"content-state":{}"#,
            "aps.event is required for a liveactivity push (start, update or end)"
        ),
        (
            #""event":1,"timestamp":1765000060,"content-state":{}"#,
            "aps.event must be a string: start, update or end (got a number)"
        ),
        (
            #""event":"Update","timestamp":1765000060,"content-state":{}"#,
            "aps.event 'Update' is not start, update or end"
        ),
        (#""event":"stop","timestamp":1765000060"#, "aps.event 'stop' is not start, update or end"),
        // A terminal escape comes back escaped, and a long value cut short: the line cannot rewrite a terminal or a log.
        (
            #""event":"\u001b[2Jupdate","timestamp":1765000060"#,
            "aps.event '\\u{1b}[2Jupdate' is not start, update or end"
        ),
        (
            #""event":"\#(String(repeating: "u", count: 100))","timestamp":1765000060"#,
            "aps.event '\(String(repeating: "u", count: 40))' is not start, update or end"
        ),
        (
            #""event":"update","content-state":{}"#,
            "aps.timestamp is required for a liveactivity push (seconds since 1970)"
        ),
        (
            #""event":"update","timestamp":"1765000060","content-state":{}"#,
            "aps.timestamp must be a whole number of seconds since 1970 (got a string)"
        ),
        (
            #""event":"update","timestamp":1765000060.5,"content-state":{}"#,
            "aps.timestamp must be a whole number of seconds since 1970 (got 1765000060.5)"
        ),
        (
            #""event":"update","timestamp":1.76500006e9,"content-state":{}"#,
            "aps.timestamp must be a whole number of seconds since 1970 (got 1.76500006e9)"
        ),
        (
            #""event":"update","timestamp":99999999999999999999,"content-state":{}"#,
            "aps.timestamp must be a whole number of seconds since 1970 (got 99999999999999999999)"
        ),
        (
            #""event":"update","timestamp":null,"content-state":{}"#,
            "aps.timestamp must be a whole number of seconds since 1970 (got null)"
        ),
        (
            #""event":"update","timestamp":0,"content-state":{}"#,
            "aps.timestamp must be positive seconds since 1970 (got 0)"
        ),
        (
            #""event":"update","timestamp":-5,"content-state":{}"#,
            "aps.timestamp must be positive seconds since 1970 (got -5)"
        ),
        (
            #""event":"update","timestamp":1765000060000,"content-state":{}"#,
            "aps.timestamp 1765000060000 looks like milliseconds; give seconds since 1970 (1765000060)"
        ),
        (
            #""event":"update","timestamp":100000000000,"content-state":{}"#,
            "aps.timestamp 100000000000 looks like milliseconds; give seconds since 1970 (100000000)"
        ),
        (
            #""event":"update","timestamp":1765000060"#,
            "aps.content-state is required for a liveactivity update (an object your app decodes as its ContentState)"
        ),
        (
            #""event":"start","timestamp":1765000060,"attributes-type":"A","attributes":{},"alert":{}"#,
            "aps.content-state is required for a liveactivity start (an object your app decodes as its ContentState)"
        ),
        (
            #""event":"update","timestamp":1765000060,"content-state":"1-0""#,
            "aps.content-state must be an object (got a string)"
        ),
        (end + #","content-state":null"#, "aps.content-state must be an object (got null)"),
        (
            update + #","stale-date":1765003660000"#,
            "aps.stale-date 1765003660000 looks like milliseconds; give seconds since 1970 (1765003660)"
        ),
        (
            update + #","stale-date":"soon""#,
            "aps.stale-date must be a whole number of seconds since 1970 (got a string)"
        ),
        (update + #","stale-date":-1"#, "aps.stale-date must be 0 or more seconds since 1970 (got -1)"),
        (
            update + #","dismissal-date":1765009000"#,
            "aps.dismissal-date only applies to an end event (it says when the ended activity is removed); leave it out of an update"
        ),
        (
            start + #","dismissal-date":1765009000"#,
            "aps.dismissal-date only applies to an end event (it says when the ended activity is removed); leave it out of a start"
        ),
        (
            end + #","dismissal-date":1765009000000"#,
            "aps.dismissal-date 1765009000000 looks like milliseconds; give seconds since 1970 (1765009000)"
        ),
        (
            end + #","dismissal-date":true"#,
            "aps.dismissal-date must be a whole number of seconds since 1970 (got a boolean)"
        ),
        (update + #","relevance-score":"high""#, "aps.relevance-score must be a number (got a string)"),
        (
            update + #","alert":"Goal!""#,
            "aps.alert must be an object with title and body for a liveactivity push (got a string)"
        ),
        (
            #""event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"A","attributes":{}"#,
            "aps.alert is required to start a Live Activity (an object with title and body)"
        ),
        (
            #""event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"A","attributes":{},"alert":["Kick-off"]"#,
            "aps.alert must be an object with title and body for a liveactivity push (got an array)"
        ),
        (
            #""event":"start","timestamp":1765000000,"content-state":{},"attributes":{},"alert":{}"#,
            "aps.attributes-type is required to start a Live Activity (the name of the app's ActivityAttributes type)"
        ),
        (
            #""event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"","attributes":{},"alert":{}"#,
            "aps.attributes-type must be the name of the app's ActivityAttributes type (got '')"
        ),
        (
            #""event":"start","timestamp":1765000000,"content-state":{},"attributes-type":7,"attributes":{},"alert":{}"#,
            "aps.attributes-type must be the name of the app's ActivityAttributes type (got 7)"
        ),
        (
            #""event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"A","alert":{}"#,
            "aps.attributes is required to start a Live Activity (an object your app decodes as its ActivityAttributes)"
        ),
        (
            #""event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"A","attributes":[],"alert":{}"#,
            "aps.attributes must be an object (got an array)"
        ),
        (
            start + #","input-push-token":true"#,
            "aps.input-push-token must be 1 (it asks the device for the new activity's update token; got a boolean)"
        ),
        (
            start + #","input-push-token":0"#,
            "aps.input-push-token must be 1 (it asks the device for the new activity's update token; got 0)"
        ),
        (
            start + #","input-push-token":"1""#,
            "aps.input-push-token must be 1 (it asks the device for the new activity's update token; got '1')"
        ),
        (
            start + #","input-push-channel":"not base64!""#,
            "aps.input-push-channel must be a broadcast channel id as APNs gave it (base64, e.g. dHN0LXNyY2gtY2hubA==; got 'not base64!')"
        ),
        (
            start + #","input-push-channel":"""#,
            "aps.input-push-channel must be a broadcast channel id as APNs gave it (base64, e.g. dHN0LXNyY2gtY2hubA==; got '')"
        ),
        (
            start + #","input-push-channel":"abc""#,
            "aps.input-push-channel must be a broadcast channel id as APNs gave it (base64, e.g. dHN0LXNyY2gtY2hubA==; got 'abc')"
        ),
        (
            start + #","input-push-channel":"a===""#,
            "aps.input-push-channel must be a broadcast channel id as APNs gave it (base64, e.g. dHN0LXNyY2gtY2hubA==; got 'a===')"
        ),
        (
            start + #","input-push-channel":42"#,
            "aps.input-push-channel must be a broadcast channel id as APNs gave it (base64, e.g. dHN0LXNyY2gtY2hubA==; got 42)"
        ),
        (
            update + #","attributes-type":"MatchAttributes""#,
            "aps.attributes-type only applies to a start event (push-to-start); leave it out of an update"
        ),
        (
            update + #","input-push-token":1"#,
            "aps.input-push-token only applies to a start event (push-to-start); leave it out of an update"
        ),
        (
            end + #","input-push-channel":"AAAA""#,
            "aps.input-push-channel only applies to a start event (push-to-start); leave it out of an end"
        ),
        (
            end + #","attributes":{}"#,
            "aps.attributes only applies to a start event (push-to-start); leave it out of an end"
        ),
    ]

    @Test(arguments: refused.indices)
    func refusedWithTheMemberNamed(index: Int) throws {
        let (aps, message) = Self.refused[index]
        #expect(throws: APNsError.invalidLiveActivity(message)) {
            try LiveActivityPayload(payload: try Self.payload(aps))
        }
        #expect(!message.contains("\n"))
    }

    @Test func theRulesReadOnlyTheApsDictionary() throws {
        // Members of the same names outside aps are the app's own data.
        let payload = try Self.payload(Self.update, extra: #","event":"party","timestamp":"noon","alert":1"#)
        #expect(try LiveActivityPayload(payload: payload).event == .update)
        #expect(
            throws: APNsError.invalidLiveActivity(
                "aps.event is required for a liveactivity push (start, update or end)")
        ) {
            try LiveActivityPayload(
                payload: try Self.payload(#""content-state":{"event":"update"},"timestamp":1765000060"#))
        }
    }
}

/// The Live Activity rules reached through `NotificationInput`, the one validation of the CLI and the HTTP API:
/// each refusal names its field, and other push types are not held to them.
@Suite struct LiveActivityInputTests {
    static let update = Array(
        #"{"aps":{"event":"update","timestamp":1765000060,"content-state":{"score":"1-0"}}}"#.utf8)

    func input(
        topic: String = "com.example.app", pushType: String? = "liveactivity", priority: Int? = nil,
        payload: [UInt8] = update
    ) -> NotificationInput {
        NotificationInput(topic: topic, pushType: pushType, priority: priority, payload: payload)
    }

    func failure(_ input: NotificationInput) -> NotificationInput.Failure? {
        do {
            _ = try input.validate(defaultTopic: nil)
            return nil
        } catch { return error }
    }

    @Test func aValidUpdateGetsTheSuffixedTopicAndPriority10() throws {
        let content = try input().validate(defaultTopic: nil).content
        #expect(content.pushType == .liveactivity && content.priority == .immediate)
        #expect(content.topic == "com.example.app.push-type.liveactivity")
        #expect(
            try input(topic: "com.example.app.push-type.liveactivity", priority: 5).validate(defaultTopic: nil)
                .content.topic
                == "com.example.app.push-type.liveactivity")
        #expect(
            try input(topic: "com.example.app.push-type.liveactivity", priority: 5).validate(defaultTopic: nil)
                .content.priority
                == .conservePower)
    }

    @Test func priority1IsRefused() {
        let refused = failure(input(priority: 1))
        #expect(refused?.field == .priority)
        #expect(
            refused?.message
                == "priority 1 is not allowed for push type liveactivity (Live Activity pushes use 10 or 5)")
    }

    @Test func anInvalidPayloadNamesTheMember() {
        let refused = failure(input(payload: Array(#"{"aps":{"event":"update","content-state":{}}}"#.utf8)))
        #expect(refused?.field == .payload)
        #expect(refused?.message == "aps.timestamp is required for a liveactivity push (seconds since 1970)")
        let tooBig = Array(
            #"{"aps":{"event":"update","timestamp":1765000060,"content-state":{"s":"\#(String(repeating: "x", count: 4100))"}}}"#
                .utf8)
        #expect(
            failure(input(payload: tooBig))?.message.hasPrefix("payload is \(tooBig.count) bytes; the limit") == true)
        #expect(failure(input(payload: Array(#"{"aps":"update"}"#.utf8)))?.field == .payload)
    }

    @Test func anotherPushTypesTopicIsRefusedWithWhatToWrite() {
        let widgets = failure(input(topic: "com.example.app.push-type.widgets"))
        #expect(widgets?.field == .topic)
        #expect(
            widgets?.message
                == "invalid topic: 'com.example.app.push-type.widgets' carries the suffix '.push-type.widgets', which is not for push type liveactivity; give the bundle id com.example.app (apnsd sends a liveactivity push to com.example.app.push-type.liveactivity), or send it as push type widgets"
        )
        let miscased = failure(input(topic: "com.example.app.Push-Type.LiveActivity"))
        #expect(
            miscased?.message
                == "invalid topic: 'com.example.app.Push-Type.LiveActivity' carries the suffix '.Push-Type.LiveActivity', which is not for push type liveactivity; give the bundle id com.example.app (apnsd sends a liveactivity push to com.example.app.push-type.liveactivity)"
        )
        let alert = failure(
            input(
                topic: "com.example.app.push-type.liveactivity", pushType: nil,
                payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
        #expect(alert?.field == .topic)
        #expect(
            alert?.message
                == "invalid topic: 'com.example.app.push-type.liveactivity' carries the suffix '.push-type.liveactivity', which is not for push type alert; give the bundle id com.example.app, or send it as push type liveactivity"
        )
    }

    @Test func aTimestampMoreThanAnHourAheadOfTheClockIsRefused() throws {
        let now = Date(timeIntervalSince1970: 1_765_000_000)
        func stamped(_ seconds: Int64) -> NotificationInput {
            input(payload: Array(#"{"aps":{"event":"update","timestamp":\#(seconds),"content-state":{}}}"#.utf8))
        }
        // Clocks differ: up to an hour ahead is taken; earlier is always fine (the device keeps the newest).
        #expect(try stamped(1_765_003_600).validate(defaultTopic: nil, now: now).content.pushType == .liveactivity)
        #expect(try stamped(1_700_000_000).validate(defaultTopic: nil, now: now).content.pushType == .liveactivity)
        do {
            _ = try stamped(1_765_007_200 + 1).validate(defaultTopic: nil, now: now)
            Issue.record("a timestamp 2 h ahead was accepted")
        } catch {
            #expect(error.field == .payload)
            #expect(
                error.message
                    == "aps.timestamp 1765007201 is 2 h ahead of now (1765000000): the device would ignore every update stamped before it; give the time the content was produced"
            )
        }
        do {
            _ = try stamped(1_765_000_000 + 30 * 86_400).validate(defaultTopic: nil, now: now)
            Issue.record("a timestamp 30 days ahead was accepted")
        } catch {
            #expect(error.message.contains("is 30 days ahead of now"))
        }
    }

    @Test func otherPushTypesAreNotHeldToTheLiveActivityRules() throws {
        let alert = try input(pushType: "alert", payload: Array(#"{"aps":{"event":"update","alert":"hi"}}"#.utf8))
            .validate(defaultTopic: nil)
        #expect(alert.content.pushType == .alert)
        #expect(
            try input(pushType: "alert", priority: 1, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)).validate(
                defaultTopic: nil
            )
            .content.priority == .low)
    }
}
