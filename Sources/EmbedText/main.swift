import Foundation

// EmbedText INPUT OUTPUT NAME: writes OUTPUT, a Swift file declaring `EmbeddedText.NAME`, the text of INPUT as a raw
// string literal. The build runs it (EmbedTextPlugin) for each file of a target's `Embedded` folder, so a document
// such as the OpenAPI description is kept as a data file and still compiled into the binary.
let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: EmbedText INPUT OUTPUT NAME\n".utf8))
    exit(64)
}
let (input, output, name) = (arguments[1], arguments[2], arguments[3])
do {
    let text = try String(contentsOfFile: input, encoding: .utf8)
    // Enough #s that no `"` followed by them occurs in the text, so it cannot end the literal early.
    var hashes = "#"
    while text.contains("\"" + hashes) { hashes += "#" }
    let source = """
        // Generated at build time from \(URL(fileURLWithPath: input).lastPathComponent) by EmbedText; edit that file.
        extension EmbeddedText {
            static let \(name) = \(hashes)\"\"\"
        \(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        \"\"\"\(hashes)
        }

        """
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("EmbedText: \(input): \(error)\n".utf8))
    exit(1)
}
