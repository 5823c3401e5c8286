import HTTPServer

/// The operators' console (`/console/`): plain HTML, CSS and JavaScript modules compiled into the binary
/// (`Embedded/console`), served with headers that keep it to its own origin. Its pages call the API with the key an
/// operator pastes in, as any client does.
enum Console {
    /// Scripts, styles, images and requests from this origin only; no inline code, no frames, no forms posted.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The console's files by name.
    static let files = EmbeddedText.console

    /// The file `name` (`index.html` for the folder itself), or 404.
    static func file(_ name: String) -> HTTPResponse {
        guard let text = files[name], let type = contentType(of: name) else {
            return APIError.notFound("the console has no file \(name)").response
        }
        return HTTPResponse(status: 200, headers: headers(contentType: type), body: Array(text.utf8))
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
