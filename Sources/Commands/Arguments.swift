import ArgumentParsing
import QueueModel

/// A command's words, parsed by ArgumentParsing; its usage errors become `CLIError.usage` (exit 64).
/// Each command states which options it knows; anything else is a usage error.
struct Arguments: Sendable {
    private let parsed: ArgumentParsing.Arguments

    /// Parses `words`; `valued` options take a value, `flagNames` don't. `--help` (or `-h`) anywhere stops the
    /// command before it does anything, handing its declared options to the help (`Help.text(for:accepting:)`).
    init(_ words: [String], valued: Set<String>, flagNames: Set<String>) throws(CLIError) {
        if words.contains("--help") || words.contains("-h") { throw .help(options: valued.union(flagNames)) }
        do { parsed = try ArgumentParsing.Arguments(words, valued: valued, flagNames: flagNames) } catch {
            throw CLIError(error)
        }
    }

    var positionals: [String] { parsed.positionals }

    func flag(_ name: String) -> Bool { parsed.flag(name) }

    /// The single value of `name`; giving it twice is a usage error.
    func value(_ name: String) throws(CLIError) -> String? {
        do { return try parsed.value(name) } catch { throw CLIError(error) }
    }

    /// Every value given for a repeatable option.
    func values(_ name: String) -> [String] { parsed.values(name) }

    /// Requires exactly `names.count` positionals, naming them in the error.
    func positionals(exactly names: [String]) throws(CLIError) -> [String] {
        do { return try parsed.positionals(exactly: names) } catch { throw CLIError(error) }
    }

    /// The one positional, a campaign's (or a single send's) id.
    func campaignID() throws(CLIError) -> CampaignID {
        let text = try positionals(exactly: ["campaign ID"])[0]
        guard let id = CampaignID(text) else {
            throw .usage("'\(text)' is not a campaign id (a positive whole number)")
        }
        return id
    }
}
