/// The `aps` dictionary of an `apns-push-type: liveactivity` push, checked against ActivityKit's rules before it is
/// enqueued (docs/APNS.md; Apple's "Starting and updating Live Activities with ActivityKit push notifications").
/// APNs answers 200 to a malformed one and the device drops it, so without this check a mistake shows only as a
/// Live Activity that never changes. Each refusal is one line that names the member.
public struct LiveActivityPayload: Sendable, Equatable {
    /// What the push does to the activity.
    public enum Event: String, Sendable, CaseIterable {
        /// Push-to-start (iOS 17.2+), sent to the app's push-to-start token.
        case start
        /// New content for a running activity, sent to its update token.
        case update
        /// Ends the activity (it stays visible until its dismissal date, up to 4 hours).
        case end

        /// "a start", "an update", "an end", for messages.
        var withArticle: String { self == .start ? "a start" : "an \(rawValue)" }
    }

    /// One member of `aps` as the rules read it: its JSON type, with the value where a rule looks at it.
    public enum Member: Sendable, Equatable {
        case object, array, bool, null
        case string(String)
        /// A number without fraction or exponent that fits in 64 bits.
        case integer(Int64)
        /// Any other number, as written.
        case number(String)
    }

    /// Dates from here on are taken for milliseconds (10^11 seconds is the year 5138; 10^11 milliseconds is
    /// March 1973), the usual mistake with a JavaScript `Date.now()`.
    public static let millisecondsFrom: Int64 = 100_000_000_000

    /// Members only a start event reads; on an update or end the device ignores them, so their presence means the
    /// sender expects something that will not happen.
    public static let startOnly = ["attributes-type", "attributes", "input-push-token", "input-push-channel"]

    /// How far ahead of the clock a timestamp may be (clocks differ a little): the device drops every later push
    /// stamped before the newest it has, so one an hour or more ahead (a unit or clock mistake) silences the
    /// activity until that time.
    public static let futureTolerance: Int64 = 3600

    public let event: Event
    /// When the content was produced, in seconds since 1970: the device drops a push older than the one it has.
    public let timestamp: Int64

    /// Checks `aps`, given by member name. The first rule broken is thrown, in a fixed order: event, timestamp,
    /// content-state, the dates, relevance-score, alert, then the start members.
    public init(aps: [String: Member]) throws(APNsError) {
        event = try Self.event(aps["event"])
        guard let timestamp = try Self.date("timestamp", aps["timestamp"], allowZero: false) else {
            throw Self.fail("aps.timestamp is required for a liveactivity push (seconds since 1970)")
        }
        self.timestamp = timestamp
        try Self.contentState(aps["content-state"], event: event)
        _ = try Self.date("stale-date", aps["stale-date"], allowZero: true)
        if aps["dismissal-date"] != nil && event != .end {
            throw Self.fail(
                "aps.dismissal-date only applies to an end event (it says when the ended activity is removed); leave it out of \(event.withArticle)"
            )
        }
        _ = try Self.date("dismissal-date", aps["dismissal-date"], allowZero: true)
        if let score = aps["relevance-score"] {
            switch score {
            case .integer, .number: break
            default: throw Self.fail("aps.relevance-score must be a number (got \(Self.typeName(score)))")
            }
        }
        try Self.alert(aps["alert"], event: event)
        guard event == .start else {
            if let member = Self.startOnly.first(where: { aps[$0] != nil }) {
                throw Self.fail(
                    "aps.\(member) only applies to a start event (push-to-start); leave it out of \(event.withArticle)")
            }
            return
        }
        try Self.startMembers(aps)
    }

    /// Refuses a timestamp more than `futureTolerance` after `now` (seconds since 1970).
    public func checkTimestamp(now: Int64) throws(APNsError) {
        guard timestamp > now + Self.futureTolerance else { return }
        let hours = Double(timestamp - now) / 3600
        throw Self.fail(
            "aps.timestamp \(timestamp) is \(hours < 48 ? "\(Int(hours.rounded())) h" : "\(Int((hours / 24).rounded())) days") ahead of now (\(now)): the device would ignore every update stamped before it; give the time the content was produced"
        )
    }

    private static func event(_ member: Member?) throws(APNsError) -> Event {
        let expected = "start, update or end"
        guard let member else { throw fail("aps.event is required for a liveactivity push (\(expected))") }
        guard case .string(let text) = member else {
            throw fail("aps.event must be a string: \(expected) (got \(typeName(member)))")
        }
        guard let event = Event(rawValue: text) else {
            throw fail("aps.event '\(Printable.escaped(String(text.prefix(40))))' is not \(expected)")
        }
        return event
    }

    /// A date in whole seconds since 1970; nil when it is absent.
    private static func date(_ name: String, _ member: Member?, allowZero: Bool) throws(APNsError) -> Int64? {
        guard let member else { return nil }
        guard case .integer(let seconds) = member else {
            let got: String
            if case .number(let text) = member { got = String(text.prefix(40)) } else { got = typeName(member) }
            throw fail("aps.\(name) must be a whole number of seconds since 1970 (got \(got))")
        }
        guard seconds > 0 || (allowZero && seconds == 0) else {
            throw fail(
                "aps.\(name) must be \(allowZero ? "0 or more" : "positive") seconds since 1970 (got \(seconds))")
        }
        guard seconds < millisecondsFrom else {
            throw fail("aps.\(name) \(seconds) looks like milliseconds; give seconds since 1970 (\(seconds / 1000))")
        }
        return seconds
    }

    private static func contentState(_ member: Member?, event: Event) throws(APNsError) {
        guard let member else {
            // An end may leave the content as it is; a start and an update carry the content the activity shows.
            if event == .end { return }
            throw fail(
                "aps.content-state is required for a liveactivity \(event) (an object your app decodes as its ContentState)"
            )
        }
        guard member == .object else { throw fail("aps.content-state must be an object (got \(typeName(member)))") }
    }

    private static func alert(_ member: Member?, event: Event) throws(APNsError) {
        guard let member else {
            if event == .start {
                throw fail("aps.alert is required to start a Live Activity (an object with title and body)")
            }
            return
        }
        guard member == .object else {
            throw fail(
                "aps.alert must be an object with title and body for a liveactivity push (got \(typeName(member)))")
        }
    }

    private static func startMembers(_ aps: [String: Member]) throws(APNsError) {
        switch aps["attributes-type"] {
        case nil:
            throw fail(
                "aps.attributes-type is required to start a Live Activity (the name of the app's ActivityAttributes type)"
            )
        case .string(let name) where !name.isEmpty:
            break
        case let member?:
            throw fail(
                "aps.attributes-type must be the name of the app's ActivityAttributes type (got \(shown(member)))")
        }
        guard let attributes = aps["attributes"] else {
            throw fail(
                "aps.attributes is required to start a Live Activity (an object your app decodes as its ActivityAttributes)"
            )
        }
        guard attributes == .object else {
            throw fail("aps.attributes must be an object (got \(typeName(attributes)))")
        }
        if let token = aps["input-push-token"], token != .integer(1) {
            throw fail(
                "aps.input-push-token must be 1 (it asks the device for the new activity's update token; got \(shown(token)))"
            )
        }
        if let channel = aps["input-push-channel"] {
            guard case .string(let id) = channel, isBase64(id) else {
                throw fail(
                    "aps.input-push-channel must be a broadcast channel id as APNs gave it (base64, e.g. dHN0LXNyY2gtY2hubA==; got \(shown(channel)))"
                )
            }
        }
    }

    /// Standard base64 with its padding, as APNs writes `apns-channel-id`; not empty.
    static func isBase64(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard padding <= 2 else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default: false
            }
        }
    }

    /// A member's value (a number, a short string) or its type, for "got …".
    private static func shown(_ member: Member) -> String {
        switch member {
        case .integer(let value): String(value)
        case .number(let text): String(text.prefix(40))
        case .string(let text): "'\(Printable.escaped(String(text.prefix(40))))'"
        default: typeName(member)
        }
    }

    private static func typeName(_ member: Member) -> String {
        switch member {
        case .object: "an object"
        case .array: "an array"
        case .bool: "a boolean"
        case .null: "null"
        case .string: "a string"
        case .integer, .number: "a number"
        }
    }

    private static func fail(_ message: String) -> APNsError { .invalidLiveActivity(message) }
}
