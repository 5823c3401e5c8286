import ArgumentParsing
import Testing

@Suite struct ArgumentsTests {
    private func parse(_ words: [String]) throws(UsageError) -> Arguments {
        try Arguments(words, valued: ["name", "tag"], flagNames: ["json", "help"], shortFlags: ["h": "help"])
    }

    private func usageError(_ words: [String]) -> String? {
        do {
            _ = try parse(words)
            return nil
        } catch { return error.message }
    }

    @Test func valuesInBothSpellingsFlagsAndPositionals() throws {
        let arguments = try parse(["a", "--name", "x", "--tag=t1", "--json", "-", "--tag", "t2", "b"])
        #expect(try arguments.value("name") == "x")
        #expect(arguments.values("tag") == ["t1", "t2"])
        #expect(arguments.flag("json"))
        #expect(!arguments.flag("help"))
        #expect(arguments.positionals == ["a", "-", "b"])
        #expect(try arguments.value("absent") == nil)
    }

    @Test func doubleDashEndsOptions() throws {
        let arguments = try parse(["--json", "--", "--name", "-h"])
        #expect(arguments.flag("json"))
        #expect(arguments.positionals == ["--name", "-h"])
        #expect(try arguments.value("name") == nil)
    }

    @Test func shortFlagsAndOtherDashWords() throws {
        #expect(try parse(["-h"]).flag("help"))
        // A one-dash word that is not a declared short flag is a positional, so negative numbers pass as values.
        let arguments = try parse(["-x", "--name", "-1"])
        #expect(arguments.positionals == ["-x"])
        #expect(try arguments.value("name") == "-1")
    }

    @Test func usageErrors() {
        #expect(usageError(["--bogus"]) == "unknown option '--bogus'")
        #expect(usageError(["--bogus=1"]) == "unknown option '--bogus'")
        #expect(usageError(["--json=yes"]) == "--json takes no value")
        #expect(usageError(["--name"]) == "--name needs a value")
        #expect(usageError(["--name", "--json"]) == "--name needs a value")
        #expect(usageError(["--name", "-h"]) == "--name needs a value")
    }

    @Test func valueMayLookLikeAnUnknownOption() throws {
        // Only the caller's own options are taken for a missing value; anything else is the value.
        #expect(try parse(["--name", "--other"]).value("name") == "--other")
        #expect(try parse(["--name=--json"]).value("name") == "--json")
    }

    @Test func singleValuesAndRequiredOnes() throws {
        let twice = try parse(["--name", "a", "--name", "b"])
        #expect(throws: UsageError("--name given 2 times")) { try twice.value("name") }
        #expect(throws: UsageError("--tag is required")) { try twice.required("tag") }
        #expect(throws: UsageError("--name given 2 times")) { try twice.required("name") }
        #expect(try parse(["--name", "a"]).required("name") == "a")
    }

    @Test func exactPositionals() throws {
        #expect(try parse(["a", "b"]).positionals(exactly: ["FIRST", "SECOND"]) == ["a", "b"])
        #expect(throws: UsageError("missing SECOND")) { try parse(["a"]).positionals(exactly: ["FIRST", "SECOND"]) }
        #expect(throws: UsageError("unexpected argument 'c'")) {
            try parse(["a", "b", "c"]).positionals(exactly: ["FIRST", "SECOND"])
        }
    }
}
