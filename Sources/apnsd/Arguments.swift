/// The words after the command: options (`--name value`, `--name=value`, `--flag`) and positionals.
/// Each command states which options it knows; anything else is a usage error.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `words`; `valued` options take a value, `flagNames` don't.
    init(_ words: [String], valued: Set<String>, flagNames: Set<String>) throws(CLIError) {
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("--") || word == "-" {
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
                guard inline == nil else { throw .usage("--\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < words.count else { throw .usage("--\(name) needs a value") }
                    value = words[index]
                    index += 1
                }
                values[name, default: []].append(value)
            } else {
                throw .usage("unknown option '--\(name)'")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The single value of `name`; giving it twice is a usage error.
    func value(_ name: String) throws(CLIError) -> String? {
        guard let list = values[name] else { return nil }
        guard list.count == 1 else { throw .usage("--\(name) given \(list.count) times") }
        return list[0]
    }

    /// Every value given for a repeatable option.
    func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Requires exactly `count` positionals, naming them in the error.
    func positionals(exactly names: [String]) throws(CLIError) -> [String] {
        guard positionals.count == names.count else {
            if positionals.count < names.count { throw .usage("missing \(names[positionals.count])") }
            throw .usage("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }
}
