/// A command line that cannot be run as given: one line saying what is wrong (executables exit 64 on it).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
