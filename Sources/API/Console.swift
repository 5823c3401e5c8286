import HTTPServer

/// The operators' console (`/console/`): plain HTML, CSS and JavaScript modules compiled into the binary
/// (`Embedded/console`), served with headers that keep it to its own origin. Its pages call the API with the key an
/// operator pastes in, as any client does.
enum Console {
    /// Scripts, styles, images and requests from this origin only; no inline code, no frames, no forms posted.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Each file's answer by name, built once: bytes and headers never change while the binary runs.
    static let responses: [String: HTTPResponse] = EmbeddedText.console.reduce(into: [:]) { responses, file in
        guard let type = contentType(of: file.key) else { return }
        responses[file.key] = HTTPResponse(
            status: 200, headers: headers(contentType: type), body: Array(file.value.utf8))
    }

    /// The file `name` (`index.html` for the folder itself), or 404.
    static func file(_ name: String) -> HTTPResponse {
        responses[name] ?? APIError.notFound("the console has no file \(name)").response
    }

    /// `/console` without its slash: the pages' relative links need it.
    static let redirect = HTTPResponse(
        status: 308, headers: ["Location": "/console/", "Content-Type": "text/plain; charset=utf-8"],
        body: Array("/console/\n".utf8))

    static func headers(contentType: String) -> HTTPHeaders {
        [
            "Content-Type": contentType, "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
            // Always asked again: a new binary's pages are never mixed with an old one's scripts.
            "Cache-Control": "no-cache",
        ]
    }

    static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        default: nil
        }
    }
}
