/// What can go wrong starting the HTTP server, in one line a person can act on.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// A listen address that does not parse (the text given, why).
    case badListenAddress(String, String)
    /// libmicrohttpd would not start on the address (address, the system's reason).
    case startFailed(String, String)
    /// The certificate or key could not be used (why; never the key itself).
    case tls(String)

    public var description: String {
        switch self {
        case .badListenAddress(let text, let reason): "listen address \"\(text)\": \(reason)"
        case .startFailed(let address, let reason): "cannot listen on \(address): \(reason)"
        case .tls(let reason): "TLS: \(reason)"
        }
    }
}
