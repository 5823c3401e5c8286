/// The targets Package.swift declares, read from its text: each `.target`, `.executableTarget`, `.testTarget` and
/// `.systemLibrary` call, with its name, dependencies and path.
struct PackageTarget: Equatable {
    var kind: String
    var name: String
    var dependencies: [String]
    var path: String?

    /// A module of the product (Sources/), rather than a test, fuzz target, benchmark or C library.
    var isModule: Bool {
        (kind == "target" || kind == "executableTarget") && !(path ?? "").hasPrefix("Tests/")
            && !(path ?? "").hasPrefix("Benchmarks/")
    }

    static func parse(_ manifest: String) -> [PackageTarget] {
        var targets: [PackageTarget] = []
        let text = Array(manifest)
        var index = 0
        while index < text.count {
            guard text[index] == ".", let kind = kindAt(text, index + 1) else {
                index += 1
                continue
            }
            let open = index + 1 + kind.count
            let close = matchingParenthesis(text, open)
            let call = String(text[open...close])
            if let name = string(after: "name:", in: call) {
                targets.append(
                    PackageTarget(
                        kind: kind, name: name, dependencies: strings(inList: "dependencies:", of: call),
                        path: string(after: "path:", in: call)))
            }
            index = close + 1
        }
        return targets
    }

    private static let kinds = ["executableTarget", "testTarget", "systemLibrary", "target"]

    private static func kindAt(_ text: [Character], _ start: Int) -> String? {
        kinds.first { kind in
            let end = start + kind.count
            return end < text.count && String(text[start..<end]) == kind && text[end] == "("
        }
    }

    private static func matchingParenthesis(_ text: [Character], _ open: Int) -> Int {
        var depth = 0
        var inString = false
        for index in open..<text.count {
            switch text[index] {
            case "\"": inString.toggle()
            case "(" where !inString: depth += 1
            case ")" where !inString:
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return text.count - 1
    }

    private static func string(after label: String, in call: String) -> String? {
        guard let labelRange = call.range(of: label) else { return nil }
        let rest = call[labelRange.upperBound...].drop { $0 == " " || $0 == "\n" }
        guard rest.first == "\"" else { return nil }
        return String(rest.dropFirst().prefix { $0 != "\"" })
    }

    private static func strings(inList label: String, of call: String) -> [String] {
        guard let labelRange = call.range(of: label),
            let open = call[labelRange.upperBound...].firstIndex(of: "["),
            let close = call[open...].firstIndex(of: "]")
        else { return [] }
        return call[call.index(after: open)..<close].split(separator: "\"", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}
