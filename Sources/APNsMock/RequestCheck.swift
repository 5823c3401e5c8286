import APNs

/// The APNs rules the simulator checks on one request, fed header by header as they arrive so that
/// the hot path allocates nothing but the token string. The first problem found is kept.
///
/// What it keeps is bounded whatever the client sends: the authorization header as its verdict and digest, the
/// tail of the topic, and examples cut to `exampleBytes`.
struct RequestCheck {
    /// Longest example kept for the validation-failure statistics.
    static let exampleBytes = 80
    /// Topic bytes kept: a whole bundle id (at most 255 bytes) with the longest push-type suffix, for the team and
    /// certificate topic checks; a longer topic can match no bundle id.
    static let topicBytes = 320

    /// A request's method as the simulator tells them apart.
    enum Method {
        case post, get, delete, other
    }

    var methodIsPost = false
    var sawMethod = false
    /// The method when it is not POST (worked out only then: a push is POST).
    private var otherMethod = Method.other
    var pathProblem: Reason?
    var token: String?
    var headerProblem: Reason?
    var problemExample = ""
    var sawTopic = false
    var topicSuffixOK = true
    var pushType: PushType = .alert
    /// The topic's last `topicBytes` bytes, and its full length.
    var topicTail: [UInt8] = []
    var topicLength = 0
    var priority = 10
    var apnsID: [UInt8]?
    /// The authorization header as judged when it arrived; nil when there was none.
    var authorization: PresentedAuthorization?
    var bodyBytes = 0
    var isStatsPath = false
    /// A request to the broadcast paths (channel management, broadcast sends); nil for a device push.
    var channel: ChannelRequest?
    /// The path starts like a broadcast path but is none: 404 BadPath whatever the method.
    private var badBroadcastPath = false
    private var seen: UInt16 = 0

    private static let pathPrefix = ByteString("/3/device/")
    private static let statsPath = ByteString("/_mock/stats")
    private static let managementPrefix = ByteString("/1/apps/")
    private static let broadcastPrefix = ByteString("/4/broadcasts/")

    /// Records one header field; `judge` turns an authorization header into its verdict (the connection's cache).
    mutating func header(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
        judge: (UnsafeBufferPointer<UInt8>) -> PresentedAuthorization
    ) {
        guard let field = Field(name) else { return }
        if seen & field.bit != 0 {
            // The request fails as it is; a repeated value costs nothing more (no second verification).
            fail(.duplicateHeaders, field.name)
            return
        }
        seen |= field.bit
        // Pseudo-headers come before the others, so the path has decided the route by now.
        if channel != nil, field.rawValue > Field.authorization.rawValue {
            channelHeader(field, value)
            return
        }
        switch field {
        case .method:
            sawMethod = true
            methodIsPost = post.matches(value)
            if !methodIsPost { otherMethod = get.matches(value) ? .get : delete.matches(value) ? .delete : .other }
        case .path:
            checkPath(value)
        case .authorization:
            authorization = judge(value)
        case .topic:
            sawTopic = true
            topicTail = Array(value.suffix(Self.topicBytes))
            topicLength = value.count
            if value.isEmpty { fail(.missingTopic, "empty apns-topic") }
        case .pushType:
            if let type = pushTypeNames.first(where: { $0.0.matches(value) })?.1 {
                pushType = type
            } else {
                fail(.invalidPushType, example(value))
            }
        case .priority:
            if value.count == 2, value[0] == UInt8(ascii: "1"), value[1] == UInt8(ascii: "0") {
                priority = 10
            } else if value.count == 1, value[0] == UInt8(ascii: "5") || value[0] == UInt8(ascii: "1") {
                priority = Int(value[0] - UInt8(ascii: "0"))
            } else {
                fail(.badPriority, example(value))
            }
        case .expiration:
            if value.isEmpty || value.count > 19 || !value.allSatisfy({ (0x30...0x39).contains($0) }) {
                fail(.badExpirationDate, example(value))
            }
        case .id:
            if canonicalUUID(value) {
                apnsID = Array(value)
            } else {
                fail(.badMessageId, example(value))
            }
        case .collapseID:
            if value.count > CollapseID.maximumBytes { fail(.badCollapseId, "\(value.count) bytes") }
        case .channelID, .requestID:
            break  // not a device push's headers: APNs ignores headers it does not use
        }
    }

    /// The method, once :method arrived.
    var method: Method { methodIsPost ? .post : otherMethod }

    /// A header of a broadcast-path request (cold: never a device push's).
    private mutating func channelHeader(_ field: Field, _ value: UnsafeBufferPointer<UInt8>) {
        let broadcast = channel?.resource == .broadcast
        switch field {
        case .channelID: channel?.channelIDHeader(value)
        case .requestID: channel?.requestIDHeader(value)
        case .pushType where broadcast: channel?.pushTypeHeader(value)
        case .priority where broadcast: channel?.priorityHeader(value)
        case .expiration where broadcast: channel?.expirationHeader(value)
        default: break  // apns-topic, apns-id, apns-collapse-id: not part of these APIs
        }
    }

    /// Whether `bytes` is a UUID in canonical 8-4-4-4-12 form (any case).
    static func isCanonicalUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { canonicalUUID(bytes) }

    /// The topic as sent; one longer than `topicBytes` is its kept tail after "…" (which no bundle id matches).
    var topic: String { (topicLength > Self.topicBytes ? "…" : "") + String(decoding: topicTail, as: UTF8.self) }

    /// The topic for the statistics' examples, cut to `exampleBytes`.
    var topicExample: String {
        (topicLength > Self.exampleBytes ? "…" : "")
            + String(decoding: topicTail.suffix(Self.exampleBytes), as: UTF8.self)
    }

    private mutating func checkPath(_ value: UnsafeBufferPointer<UInt8>) {
        if Self.statsPath.matches(value) { isStatsPath = true }
        guard Self.pathPrefix.isPrefix(of: value) else {
            if let request = ChannelRequest(path: value) {
                channel = request
                return
            }
            badBroadcastPath = Self.managementPrefix.isPrefix(of: value) || Self.broadcastPrefix.isPrefix(of: value)
            pathProblem = .badPath
            problemExample = example(value)
            return
        }
        let tokenBytes = UnsafeBufferPointer(rebasing: value[Self.pathPrefix.count...])
        if tokenBytes.isEmpty {
            pathProblem = .missingDeviceToken
            return
        }
        guard tokenBytes.count % 2 == 0, tokenBytes.count <= DeviceToken.maximumHexLength, isHex(tokenBytes) else {
            pathProblem = .badDeviceToken
            problemExample = example(tokenBytes)
            return
        }
        token = String(unsafeUninitializedCapacity: tokenBytes.count) { out in
            for i in 0..<tokenBytes.count { out[i] = tokenBytes[i] | (tokenBytes[i] >= 0x41 ? 0x20 : 0) }
            return tokenBytes.count
        }
    }

    private func example(_ value: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: value.prefix(Self.exampleBytes), as: UTF8.self)
    }

    private mutating func fail(_ reason: Reason, _ example: String) {
        guard headerProblem == nil else { return }
        headerProblem = reason
        problemExample = example
    }

    /// The APNs error for this request once all of it arrived, ignoring authorization; nil when it is valid.
    /// `topicOptional`: the request may name no topic (a certificate connection's requests default to its bundle id).
    mutating func finalProblem(topicOptional: Bool = false) -> (status: Int, reason: Reason)? {
        if !sawMethod || !methodIsPost { return badBroadcastPath ? (404, .badPath) : (405, .methodNotAllowed) }
        if let pathProblem {
            return pathProblem == .badPath ? (404, .badPath) : (400, pathProblem)
        }
        // No :path at all (nghttp2 resets such a stream first; FuzzMockRequest found the rules alone let it pass).
        if token == nil { return (404, .badPath) }
        if let headerProblem { return (400, headerProblem) }
        if !sawTopic && !topicOptional { return (400, .missingTopic) }
        if sawTopic, let suffix = pushType.topicSuffix,
            !topicTail.withUnsafeBufferPointer({ ByteString.suffix(suffix, of: $0) })
        {
            problemExample = "\(topicExample) for push type \(pushType.rawValue)"
            return (400, .badTopic)
        }
        if pushType == .background && priority != 5 {
            problemExample = "background push with priority \(priority)"
            return (400, .badPriority)
        }
        if bodyBytes == 0 { return (400, .payloadEmpty) }
        if bodyBytes > pushType.payloadLimit {
            problemExample = "\(bodyBytes) bytes for \(pushType.rawValue)"
            return (413, .payloadTooLarge)
        }
        return nil
    }
}

/// The request headers the simulator looks at.
private enum Field: UInt16, CaseIterable {
    // method, path and authorization first: `header` tells the others apart by rawValue.
    case method, path, authorization, topic, pushType, priority, expiration, id, collapseID, channelID, requestID

    private static let names: [ByteString] = [
        ByteString(":method"), ByteString(":path"), ByteString("authorization"), ByteString("apns-topic"),
        ByteString("apns-push-type"), ByteString("apns-priority"), ByteString("apns-expiration"), ByteString("apns-id"),
        ByteString("apns-collapse-id"), ByteString("apns-channel-id"), ByteString("apns-request-id"),
    ]

    init?(_ name: UnsafeBufferPointer<UInt8>) {
        for field in Field.allCases where Self.names[Int(field.rawValue)].matches(name) {
            self = field
            return
        }
        return nil
    }

    var bit: UInt16 { 1 << rawValue }

    var name: String { String(decoding: Self.names[Int(rawValue)].bytes, as: UTF8.self) }
}

/// Push types by their header bytes.
private let pushTypeNames: [(ByteString, PushType)] = [
    (ByteString("alert"), .alert), (ByteString("background"), .background), (ByteString("location"), .location),
    (ByteString("voip"), .voip), (ByteString("complication"), .complication),
    (ByteString("fileprovider"), .fileprovider),
    (ByteString("mdm"), .mdm), (ByteString("liveactivity"), .liveactivity), (ByteString("pushtotalk"), .pushtotalk),
    (ByteString("controls"), .controls), (ByteString("widgets"), .widgets),
]

private let post = ByteString("POST")
private let get = ByteString("GET")
private let delete = ByteString("DELETE")

private func isHex(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    for byte in bytes {
        switch byte {
        case 0x30...0x39, 0x61...0x66, 0x41...0x46: continue
        default: return false
        }
    }
    return true
}

private func canonicalUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count == 36 else { return false }
    for i in 0..<36 {
        if i == 8 || i == 13 || i == 18 || i == 23 {
            if bytes[i] != UInt8(ascii: "-") { return false }
        } else {
            switch bytes[i] {
            case 0x30...0x39, 0x61...0x66, 0x41...0x46: continue
            default: return false
            }
        }
    }
    return true
}
