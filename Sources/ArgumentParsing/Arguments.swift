/// The words of a command line: options (`--name value`, `--name=value`, `--flag`), short flags (`-h`) and
/// positionals. `--` ends the options; `-` alone is a positional (stdin, by convention). The caller states which
/// options it knows; anything else is a usage error.
public struct Arguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `words`: `valued` options take a value, `flagNames` don't, and `shortFlags` spells some flags with
    /// one dash and one letter (`["h": "help"]` makes `-h` the flag `help`). A value given as the next word must
    /// not be one of these options itself (`--key-id --team-id X` is "--key-id needs a value").
    public init(_ words: [String], valued: Set<String>, flagNames: Set<String>, shortFlags: [String: String] = [:])
        throws(UsageError)
    {
        var index = 0
        var onlyPositionals = false
        func isKnownOption(_ word: String) -> Bool {
            if let short = Self.shortName(word) { return shortFlags[short] != nil }
            guard word.hasPrefix("--"), word.count > 2 else { return false }
            let name = word.dropFirst(2).prefix { $0 != "=" }
            return valued.contains(String(name)) || flagNames.contains(String(name))
        }
        while index < words.count {
            let word = words[index]
            index += 1
            if !onlyPositionals, let short = Self.shortName(word), let name = shortFlags[short] {
                flags.insert(name)
                continue
            }
            if onlyPositionals || !word.hasPrefix("--") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagNames.contains(name) {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < words.count, !isKnownOption(words[index]) else {
                        throw UsageError("--\(name) needs a value")
                    }
                    value = words[index]
                    index += 1
                }
                values[name, default: []].append(value)
            } else {
                throw UsageError("unknown option '--\(name)'")
            }
        }
    }

    /// `x` for a word `-x` (one dash, one character), else nil.
    private static func shortName(_ word: String) -> String? {
        guard word.count == 2, word.first == "-", word.last != "-" else { return nil }
        return String(word.dropFirst())
    }

    /// Whether the flag `name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The single value of `name`, nil when absent; giving it twice is a usage error.
    public func value(_ name: String) throws(UsageError) -> String? {
        guard let list = values[name] else { return nil }
        guard list.count == 1 else { throw UsageError("--\(name) given \(list.count) times") }
        return list[0]
    }

    /// The value of a required option: a usage error ("--name is required") when absent.
    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = try value(name) else { throw UsageError("--\(name) is required") }
        return value
    }

    /// Every value given for a repeatable option, in order.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Requires exactly `names.count` positionals, naming the first missing or unexpected one in the error.
    public func positionals(exactly names: [String]) throws(UsageError) -> [String] {
        guard positionals.count == names.count else {
            if positionals.count < names.count { throw UsageError("missing \(names[positionals.count])") }
            throw UsageError("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }
}
