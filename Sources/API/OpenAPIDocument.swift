import HTTPServer

/// `GET /openapi.json`: the OpenAPI 3.1 document of every route, kept as a data file (`Embedded/openapi.json`,
/// compiled in by EmbedTextPlugin) so that it can say what each route takes and answers. Tests keep it true: every
/// routed method and template is documented and the reverse, and schemathesis checks real answers against it.
enum OpenAPIDocument {
    static let response = JSONResponse.make(200, text)

    static let text = EmbeddedText.openapi
}

/// The files of `Embedded/`, as text.
enum EmbeddedText {}
