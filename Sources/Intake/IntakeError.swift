/// An input that breaks one of apnsd's rules, as one line that says what is wrong and what is expected.
/// Shared by every way in (the command line now, the HTTP API next).
public struct IntakeError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
