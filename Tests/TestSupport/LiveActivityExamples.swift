/// Live Activity pushes for the CLI and API tests: a valid start, update and end (README, "Live Activities"), and
/// invalid variants, each with the field an API refusal names and a part of the one line that explains it.
public enum LiveActivityExamples {
    public static let start =
        #"{"aps":{"event":"start","timestamp":1765000000,"content-state":{"score":"0-0","minute":0},"attributes-type":"MatchAttributes","attributes":{"home":"Lyon","away":"Nantes"},"alert":{"title":"Kick-off","body":"Lyon v Nantes"},"input-push-token":1}}"#
    public static let update =
        #"{"aps":{"event":"update","timestamp":1765000600,"content-state":{"score":"1-0","minute":10},"stale-date":1765004200,"alert":{"title":"Goal","body":"Lyon 1-0"}}}"#
    public static let end =
        #"{"aps":{"event":"end","timestamp":1765006000,"content-state":{"score":"2-1","minute":90},"dismissal-date":1765009600}}"#

    public struct Refusal: Sendable {
        public var name: String
        public var payload: String
        public var priority: Int? = nil
        public var topic: String? = nil
        /// The API's `error.field`.
        public var field = "payload"
        /// A part of the message (the CLI's stderr line, the API's `error.message`).
        public var says: String
    }

    public static let refusals: [Refusal] = [
        Refusal(
            name: "no event", payload: #"{"aps":{"timestamp":1765000600,"content-state":{}}}"#,
            says: "aps.event is required for a liveactivity push"),
        Refusal(
            name: "unknown event", payload: #"{"aps":{"event":"begin","timestamp":1765000600,"content-state":{}}}"#,
            says: "aps.event 'begin' is not start, update or end"),
        Refusal(
            name: "no timestamp", payload: #"{"aps":{"event":"update","content-state":{}}}"#,
            says: "aps.timestamp is required for a liveactivity push (seconds since 1970)"),
        Refusal(
            name: "timestamp in milliseconds",
            payload: #"{"aps":{"event":"update","timestamp":1765000600000,"content-state":{}}}"#,
            says: "aps.timestamp 1765000600000 looks like milliseconds; give seconds since 1970 (1765000600)"),
        Refusal(
            name: "timestamp with a fraction",
            payload: #"{"aps":{"event":"update","timestamp":1765000600.25,"content-state":{}}}"#,
            says: "aps.timestamp must be a whole number of seconds"),
        Refusal(
            name: "update without content-state", payload: #"{"aps":{"event":"update","timestamp":1765000600}}"#,
            says: "aps.content-state is required for a liveactivity update"),
        Refusal(
            name: "content-state not an object",
            payload: #"{"aps":{"event":"update","timestamp":1765000600,"content-state":["1-0"]}}"#,
            says: "aps.content-state must be an object (got an array)"),
        Refusal(
            name: "stale-date as text",
            payload:
                #"{"aps":{"event":"update","timestamp":1765000600,"content-state":{},"stale-date":"2026-12-06T06:00:00Z"}}"#,
            says: "aps.stale-date must be a whole number of seconds since 1970 (got a string)"),
        Refusal(
            name: "dismissal-date on an update",
            payload:
                #"{"aps":{"event":"update","timestamp":1765000600,"content-state":{},"dismissal-date":1765009600}}"#,
            says: "aps.dismissal-date only applies to an end event"),
        Refusal(
            name: "dismissal-date in milliseconds",
            payload: #"{"aps":{"event":"end","timestamp":1765006000,"dismissal-date":1765009600000}}"#,
            says: "aps.dismissal-date 1765009600000 looks like milliseconds"),
        Refusal(
            name: "relevance-score as text",
            payload: #"{"aps":{"event":"update","timestamp":1765000600,"content-state":{},"relevance-score":"high"}}"#,
            says: "aps.relevance-score must be a number"),
        Refusal(
            name: "alert as a string",
            payload: #"{"aps":{"event":"update","timestamp":1765000600,"content-state":{},"alert":"Goal"}}"#,
            says: "aps.alert must be an object with title and body"),
        Refusal(
            name: "start without alert",
            payload:
                #"{"aps":{"event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"MatchAttributes","attributes":{}}}"#,
            says: "aps.alert is required to start a Live Activity"),
        Refusal(
            name: "start without attributes-type",
            payload:
                #"{"aps":{"event":"start","timestamp":1765000000,"content-state":{},"attributes":{},"alert":{"title":"t","body":"b"}}}"#,
            says: "aps.attributes-type is required to start a Live Activity"),
        Refusal(
            name: "start without attributes",
            payload:
                #"{"aps":{"event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"MatchAttributes","alert":{"title":"t","body":"b"}}}"#,
            says: "aps.attributes is required to start a Live Activity"),
        Refusal(
            name: "input-push-token not 1",
            payload:
                #"{"aps":{"event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"MatchAttributes","attributes":{},"alert":{"title":"t","body":"b"},"input-push-token":true}}"#,
            says: "aps.input-push-token must be 1"),
        Refusal(
            name: "input-push-channel not base64",
            payload:
                #"{"aps":{"event":"start","timestamp":1765000000,"content-state":{},"attributes-type":"MatchAttributes","attributes":{},"alert":{"title":"t","body":"b"},"input-push-channel":"channel-7"}}"#,
            says: "aps.input-push-channel must be a broadcast channel id"),
        Refusal(
            name: "input-push-token on an update",
            payload: #"{"aps":{"event":"update","timestamp":1765000600,"content-state":{},"input-push-token":1}}"#,
            says: "aps.input-push-token only applies to a start event"),
        Refusal(name: "aps not an object", payload: #"{"aps":"update"}"#, says: "payload's \"aps\" is not an object"),
        Refusal(
            name: "over 4096 bytes",
            payload: #"{"aps":{"event":"update","timestamp":1765000600,"content-state":{"s":""#
                + String(repeating: "x", count: 4090) + #""}}}"#, says: "the limit for this push type is 4096 bytes"),
        Refusal(
            name: "priority 1", payload: update, priority: 1, field: "priority",
            says: "priority 1 is not allowed for push type liveactivity (Live Activity pushes use 10 or 5)"),
        Refusal(
            name: "another push type's topic", payload: update, topic: "com.example.app.push-type.widgets",
            field: "topic",
            says:
                "give the bundle id com.example.app (apnsd sends a liveactivity push to com.example.app.push-type.liveactivity)"
        ),
    ]
}
