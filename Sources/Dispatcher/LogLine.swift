import Logging

/// One line the worker's state machine asks its driver to write (the machine itself does no I/O).
struct LogLine {
    var level: Logger.Level
    var message: StaticString
    var fields: [(String, Logger.Value)]

    init(_ level: Logger.Level, _ message: StaticString, _ fields: (String, Logger.Value)...) {
        self.level = level
        self.message = message
        self.fields = fields
    }
}
