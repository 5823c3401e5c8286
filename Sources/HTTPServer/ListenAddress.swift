#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the server listens: an IP literal and a port, written `host:port` or `[IPv6]:port` (`localhost` means
/// 127.0.0.1). Port 0 lets the kernel pick a free port; `HTTPServer.start` reports the one it got.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable { case ipv4, ipv6 }

    /// The IP literal, without brackets.
    public let host: String
    public let port: Int
    public let family: Family

    public init(host: String, port: Int) throws {
        let literal = host == "localhost" ? "127.0.0.1" : host
        guard (0...65535).contains(port) else {
            throw HTTPServerError.badListenAddress("\(host):\(port)", "the port must be 0...65535")
        }
        if Self.parses(literal, family: AF_INET) {
            family = .ipv4
        } else if Self.parses(literal, family: AF_INET6) {
            family = .ipv6
        } else {
            throw HTTPServerError.badListenAddress(host, "the host must be an IPv4 or IPv6 address or localhost")
        }
        self.host = literal
        self.port = port
    }

    /// Parses `host:port` or `[IPv6]:port`.
    public init(parsing text: String) throws {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw HTTPServerError.badListenAddress(text, "expected host:port or [IPv6]:port")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw HTTPServerError.badListenAddress(text, "expected host:port or [IPv6]:port")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
            let port = Int(portText)
        else {
            throw HTTPServerError.badListenAddress(text, "the port must be a number 0...65535")
        }
        do {
            try self.init(host: String(host), port: port)
        } catch {
            throw HTTPServerError.badListenAddress(text, Self.reason(error))
        }
    }

    public var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The same address with another port (the bound one, after port 0).
    func with(port: Int) -> ListenAddress {
        // Known valid: only the port changes.
        (try? ListenAddress(host: host, port: port)) ?? self
    }

    private static func parses(_ literal: String, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(family, literal, &buffer) == 1
    }

    private static func reason(_ error: Error) -> String {
        if case .badListenAddress(_, let reason) = error as? HTTPServerError { return reason }
        return "\(error)"
    }
}
