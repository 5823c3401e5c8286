import ArgumentParsing

/// A command-line failure: printed on stderr in one line; usage errors exit 64, the rest 1.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    let isUsage: Bool

    static func usage(_ message: String) -> CLIError { CLIError(message: message, isUsage: true) }
    static func failure(_ message: String) -> CLIError { CLIError(message: message, isUsage: false) }

    /// The argument parser's usage error.
    init(_ error: UsageError) { self.init(message: error.message, isUsage: true) }

    private init(message: String, isUsage: Bool) {
        self.message = message
        self.isUsage = isUsage
    }

    var description: String { message }
    var exitCode: Int32 { isUsage ? 64 : 1 }
}
