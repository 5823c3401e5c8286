/// Why the simulator could not start or load its inputs.
public enum MockError: Error, Equatable, CustomStringConvertible {
    case badScenario(String)
    case badAddress(String)
    case socket(String)
    case tls(String)
    case file(String)

    public var description: String {
        switch self {
        case .badScenario(let why): return "bad scenario: \(why)"
        case .badAddress(let address):
            return "bad listen address '\(address)' (expected HOST:PORT, e.g. 127.0.0.1:2197)"
        case .socket(let why): return "socket error: \(why)"
        case .tls(let why): return "TLS setup failed: \(why)"
        case .file(let why): return why
        }
    }
}
