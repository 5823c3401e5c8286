/// The APNs environment a device token belongs to; a token only works on its own environment's host.
public struct Environment: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        switch rawValue.lowercased() {
        case "production": self = .production
        case "development", "sandbox": self = .development
        default: return nil
        }
    }

    private init(known: String) { rawValue = known }

    /// Apps from the App Store and TestFlight.
    public static let production = Environment(known: "production")
    /// Apps built and run from Xcode (Apple's "sandbox").
    public static let development = Environment(known: "development")

    public static let all: [Environment] = [.production, .development]

    /// Parses "production" or "development" (also "sandbox").
    public static func parse(_ string: String) throws(APNsError) -> Environment {
        guard let environment = Environment(rawValue: string) else { throw .invalidEnvironment(string) }
        return environment
    }

    /// Apple's host for this environment.
    public var defaultBaseURL: String {
        self == .production ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com"
    }

    public var description: String { rawValue }
}
