import APNs

/// The simulator's request rules (`RequestCheck`) as one call on plain values, for tests and the fuzz target:
/// the same checks a request's headers and body go through on a connection, without a connection. The
/// authorization is returned, not judged (`JWTVerifier` does that). Device pushes only: the broadcast paths
/// (`ChannelRequest`) need the channels a connection's simulator holds, so here they come back as no device push.
public enum RequestRules {
    /// What the simulator makes of one request.
    public struct Verdict: Sendable, Equatable {
        /// The APNs error status and reason, or nil when the request is valid (authorization aside).
        public var problem: (status: Int, reason: Reason)?
        /// What was wrong, as the statistics show it; empty when nothing was.
        public var example: String
        /// The device token from the path, lowercased, when the path holds a well-formed one.
        public var token: String?
        /// The apns-id header, when it is a canonical UUID.
        public var apnsID: [UInt8]?
        /// The authorization header's bytes, when there was one.
        public var authorization: [UInt8]?
        /// Whether the path is the statistics path.
        public var isStatsPath: Bool
        /// Whether a :method header was seen, and whether it was POST.
        public var sawMethod: Bool
        public var methodIsPost: Bool

        public static func == (lhs: Verdict, rhs: Verdict) -> Bool {
            lhs.problem?.status == rhs.problem?.status && lhs.problem?.reason == rhs.problem?.reason
                && lhs.example == rhs.example && lhs.token == rhs.token && lhs.apnsID == rhs.apnsID
                && lhs.authorization == rhs.authorization && lhs.isStatsPath == rhs.isStatsPath
                && lhs.sawMethod == rhs.sawMethod && lhs.methodIsPost == rhs.methodIsPost
        }
    }

    /// Feeds `headers` in order, then a body of `bodyBytes` bytes, through the simulator's checks. The
    /// authorization header is only recorded (a connection judges it with its verdict cache).
    public static func check(headers: [(name: [UInt8], value: [UInt8])], bodyBytes: Int) -> Verdict {
        var check = RequestCheck()
        var authorization: [UInt8]?
        for (name, value) in headers {
            name.withUnsafeBufferPointer { name in
                value.withUnsafeBufferPointer { value in
                    check.header(name: name, value: value) { header in
                        authorization = Array(header)
                        return .oversized  // a placeholder verdict: finalProblem leaves authorization aside
                    }
                }
            }
        }
        check.bodyBytes = bodyBytes
        let problem = check.finalProblem()
        return Verdict(
            problem: problem, example: check.problemExample, token: check.token, apnsID: check.apnsID,
            authorization: authorization, isStatsPath: check.isStatsPath,
            sawMethod: check.sawMethod, methodIsPost: check.methodIsPost)
    }
}
