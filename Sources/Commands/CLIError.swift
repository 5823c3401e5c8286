import ArgumentParsing

/// A command-line failure: printed on stderr in one line; usage errors exit 64, the rest 1. Also how `--help`
/// leaves a command: `helpOptions` holds the options that command declared, so its help can list any its text
/// does not describe (exit 0).
struct CLIError: Error, CustomStringConvertible {
    let message: String
    let isUsage: Bool
    let helpOptions: Set<String>?

    static func usage(_ message: String) -> CLIError { CLIError(message: message, isUsage: true) }
    static func failure(_ message: String) -> CLIError { CLIError(message: message, isUsage: false) }
    /// `--help` was given to a command that accepts `options`.
    static func help(options: Set<String>) -> CLIError {
        CLIError(message: "help", isUsage: false, helpOptions: options)
    }

    /// The argument parser's usage error.
    init(_ error: UsageError) { self.init(message: error.message, isUsage: true) }

    private init(message: String, isUsage: Bool, helpOptions: Set<String>? = nil) {
        self.message = message
        self.isUsage = isUsage
        self.helpOptions = helpOptions
    }

    var description: String { message }
    var exitCode: Int32 { helpOptions != nil ? 0 : isUsage ? 64 : 1 }
}
