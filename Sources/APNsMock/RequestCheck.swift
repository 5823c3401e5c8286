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

    var methodIsPost = false
    var sawMethod = false
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
    private var seen: UInt16 = 0

    private static let pathPrefix = ByteString("/3/device/")
    private static let statsPath = ByteString("/_mock/stats")

    /// Records one header field; `judge` turns an authorization header into its verdict (the connection's cache).
    mutating func header(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
                         judge: (UnsafeBufferPointer<UInt8>) -> PresentedAuthorization) {
        guard let field = Field(name) else { return }
        if seen & field.bit != 0 {
            // The request fails as it is; a repeated value costs nothing more (no second verification).
            fail(.duplicateHeaders, field.name)
            return
        }
        seen |= field.bit
        switch field {
        case .method:
            sawMethod = true
            methodIsPost = post.matches(value)
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
            if isCanonicalUUID(value) { apnsID = Array(value) } else {
                fail(.badMessageId, example(value))
            }
        case .collapseID:
            if value.count > CollapseID.maximumBytes { fail(.badCollapseId, "\(value.count) bytes") }
        }
    }

    /// The topic as sent; one longer than `topicBytes` is its kept tail after "…" (which no bundle id matches).
    var topic: String { (topicLength > Self.topicBytes ? "…" : "") + String(decoding: topicTail, as: UTF8.self) }

    /// The topic for the statistics' examples, cut to `exampleBytes`.
    var topicExample: String {
        (topicLength > Self.exampleBytes ? "…" : "") + String(decoding: topicTail.suffix(Self.exampleBytes), as: UTF8.self)
    }

    private mutating func checkPath(_ value: UnsafeBufferPointer<UInt8>) {
        if Self.statsPath.matches(value) { isStatsPath = true }
        guard Self.pathPrefix.isPrefix(of: value) else {
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
        if !sawMethod || !methodIsPost { return (405, .methodNotAllowed) }
        if let pathProblem {
            return pathProblem == .badPath ? (404, .badPath) : (400, pathProblem)
        }
        // No :path at all (nghttp2 resets such a stream first; FuzzMockRequest found the rules alone let it pass).
        if token == nil { return (404, .badPath) }
        if let headerProblem { return (400, headerProblem) }
        if !sawTopic && !topicOptional { return (400, .missingTopic) }
        if sawTopic, let suffix = pushType.topicSuffix, !topicTail.withUnsafeBufferPointer({ ByteString.suffix(suffix, of: $0) }) {
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
    case method, path, authorization, topic, pushType, priority, expiration, id, collapseID

    private static let names: [ByteString] = [
        ByteString(":method"), ByteString(":path"), ByteString("authorization"), ByteString("apns-topic"),
        ByteString("apns-push-type"), ByteString("apns-priority"), ByteString("apns-expiration"), ByteString("apns-id"),
        ByteString("apns-collapse-id"),
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
    (ByteString("voip"), .voip), (ByteString("complication"), .complication), (ByteString("fileprovider"), .fileprovider),
    (ByteString("mdm"), .mdm), (ByteString("liveactivity"), .liveactivity), (ByteString("pushtotalk"), .pushtotalk),
    (ByteString("controls"), .controls), (ByteString("widgets"), .widgets),
]

private let post = ByteString("POST")

private func isHex(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    for byte in bytes {
        switch byte {
        case 0x30...0x39, 0x61...0x66, 0x41...0x46: continue
        default: return false
        }
    }
    return true
}

private func isCanonicalUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
