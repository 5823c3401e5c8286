import APNs
import APNsMock
import Foundation
import ProviderAuth

extension FuzzTargets {
    /// The simulator's request rules (`RequestRules.check`, the checks its connections run on each request) and
    /// its provider-token check (`JWTVerifier`) on the authorization header.
    ///
    /// Input: header lines `name: value` (a pseudo-header's name keeps its leading colon, `:path: /3/device/…`),
    /// one per `\n`, then an empty line and the body. Oracles: a request the rules accept is a POST to
    /// /3/device/<valid token> with a topic and a body within its push type's limit; a token taken from the path
    /// is a valid lowercase token; an error is one of APNs's statuses; feeding the same request again, or with
    /// its authorization as the connection's last one, gives the same verdict.
    public static func mockRequest(_ bytes: [UInt8]) {
        let (headers, body) = mockRequestParts(bytes)
        let verdict = RequestRules.check(headers: headers, bodyBytes: body)
        if let problem = verdict.problem {
            require([400, 403, 404, 405, 413].contains(problem.status), "status \(problem.status)")
            require(!problem.reason.rawValue.isEmpty, "an empty reason")
        } else {
            require(verdict.sawMethod && verdict.methodIsPost, "accepted without POST: \(shown(bytes))")
            require(verdict.token != nil, "accepted without a device token: \(shown(bytes))")
            require(body > 0 && body <= 5120, "accepted a body of \(body) bytes")
            let topics = headers.filter { $0.name == Array("apns-topic".utf8) }
            require(
                topics.count == 1 && !topics[0].value.isEmpty, "accepted without one non-empty topic: \(shown(bytes))")
        }
        if let token = verdict.token {
            require(
                (try? DeviceToken(token))?.hex == token,
                "path token \(Printable.escaped(token)) is not a valid lowercase token")
        }
        require(
            RequestRules.check(headers: headers, bodyBytes: body) == verdict, "the verdict changed on a second look")
        if let authorization = verdict.authorization {
            // What the connection would ask next: a verdict, never a crash, whatever the header holds.
            let judged = Self.verifier.verify(
                authorization: String(decoding: authorization, as: UTF8.self), now: Date())
            if case .valid = judged {
                require(false, "an unsigned fuzz input passed as a provider token: \(shown(authorization))")
            }
        }
    }

    /// A verifier for a throwaway key: no fuzz input can hold a token it signed, so every token must be refused.
    static let verifier: JWTVerifier = {
        let key = try! SigningKey.generate()
        return JWTVerifier(key: key, credential: try! ProviderCredential(keyId: "FUZZKEY001", teamId: "FUZZTEAM01"))
    }()

    /// Splits a mock-request input into headers and the body's length.
    public static func mockRequestParts(_ bytes: [UInt8]) -> (headers: [(name: [UInt8], value: [UInt8])], body: Int) {
        var headers: [(name: [UInt8], value: [UInt8])] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = bytes[start..<end]
            start = end + 1
            if line.isEmpty { return (headers, max(0, bytes.count - start)) }
            // The name ends at the first ':' after its first byte (pseudo-headers start with one).
            let searchFrom = line.startIndex + 1
            guard searchFrom < line.endIndex, let colon = line[searchFrom...].firstIndex(of: UInt8(ascii: ":")) else {
                headers.append((Array(line), []))
                continue
            }
            var valueStart = colon + 1
            if valueStart < line.endIndex, line[valueStart] == 0x20 { valueStart += 1 }
            headers.append((Array(line[..<colon]), Array(line[valueStart...])))
        }
        return (headers, 0)
    }
}
