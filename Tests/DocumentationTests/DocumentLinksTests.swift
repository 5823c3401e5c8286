import Foundation
import Testing

/// A comment or document that names a Markdown file names one in the repository: the code's facts live here, not in
/// notes a reader cannot open.
@Suite struct DocumentLinksTests {
    static let scanned = ["Sources", "Tests", "Benchmarks", "scripts", "deploy", "docs"]
    static let documents = ["README.md", "BENCHMARKS.md", "FUZZING.md", "OPERATIONS.md", "Package.swift"]

    @Test func everyMarkdownFileNamedExists() throws {
        let files = Self.scanned.flatMap { Repository.files(under: $0) }
        let markdown = Set(files.filter { $0.hasSuffix(".md") } + Self.documents.filter { $0.hasSuffix(".md") })
        let basenames = Set(markdown.map { $0.split(separator: "/").last.map(String.init) ?? $0 })
        let pattern = try NSRegularExpression(pattern: #"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b"#)
        var missing: [String] = []
        for path in files.filter({ $0.hasSuffix(".swift") || $0.hasSuffix(".md") || !$0.contains(".") })
            + Self.documents
        {
            guard let text = try? Repository.text(path) else { continue }
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                let name = String(text[Range(match.range, in: text)!])
                let resolves = name.contains("/") ? markdown.contains(name) : basenames.contains(name)
                if !resolves { missing.append("\(path): \(name)") }
            }
        }
        #expect(missing.isEmpty, "names a Markdown file the repository does not have: \(missing)")
    }
}
