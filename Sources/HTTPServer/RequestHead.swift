/// A request head as received, judged before a handler runs: the target's bytes exactly as sent (libmicrohttpd
/// would decode them, and stop at a `%00`) and the header fields. Its verdict is the decoded path and query, or why
/// the request is refused.
struct RequestHead: Sendable {
    /// The request target (path and query), undecoded.
    var target: [UInt8]
    var headers: HTTPHeaders
    /// False when the target held a raw NUL: what follows it never reached `target`.
    var targetComplete = true

    struct Accepted {
        var path: String
        /// In order, decoded (`+` is a space); `?flag` has a nil value.
        var query: [(name: String, value: String?)]
    }

    func judge(_ limits: RequestLimits) -> Result<Accepted, HeadRefusal> {
        if target.count > limits.targetBytes {
            return .failure(HeadRefusal(414, "uri_too_long", "the request target is over \(limits.targetBytes) bytes"))
        }
        let headerBytes = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        if headerBytes > limits.headerBytes {
            return .failure(
                HeadRefusal(431, "headers_too_large", "the header fields are over \(limits.headerBytes) bytes"))
        }
        if let refusal = framingRefusal(limits) { return .failure(refusal) }
        guard targetComplete else { return .failure(.invalid("the request target holds a NUL byte")) }
        guard target.first == UInt8(ascii: "/") else {
            return .failure(.invalid("the request target must be a path starting with /"))
        }
        let question = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        let path: String
        switch Self.decode(target[..<question], plusIsSpace: false, slashAllowed: false, what: "the path") {
        case .success(let text): path = text
        case .failure(let refusal): return .failure(refusal)
        }
        var query: [(name: String, value: String?)] = []
        if question < target.endIndex {
            let items = target[(question + 1)...].split(separator: UInt8(ascii: "&"))
            if items.count > limits.queryItems {
                return .failure(.invalid("more than \(limits.queryItems) query parameters"))
            }
            for item in items {
                let equals = item.firstIndex(of: UInt8(ascii: "="))
                let name: String
                let rawName = item[..<(equals ?? item.endIndex)]
                switch Self.decode(rawName, plusIsSpace: true, slashAllowed: true, what: "a query parameter's name") {
                case .success(let text): name = text
                case .failure(let refusal): return .failure(refusal)
                }
                guard let equals else {
                    query.append((name: name, value: nil))
                    continue
                }
                let what = "query parameter \(name)"
                switch Self.decode(item[(equals + 1)...], plusIsSpace: true, slashAllowed: true, what: what) {
                case .success(let value): query.append((name: name, value: value))
                case .failure(let refusal): return .failure(refusal)
                }
            }
        }
        return .success(Accepted(path: path, query: query))
    }

    /// Header fields that frame the body or name the client one way to this server and maybe another to a proxy in
    /// front: a name that is not a token (libmicrohttpd keeps `Transfer-Encoding :` as a field of its own, which a
    /// proxy may read as the real one), a control character in a value, a repeated single field, Content-Length
    /// beside Transfer-Encoding, a transfer coding other than chunked.
    private func framingRefusal(_ limits: RequestLimits) -> HeadRefusal? {
        var seen: Set<String> = []
        for field in headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                return .invalid("a header name holds a character other than letters, digits and !#$%&'*+-.^_`|~")
            }
            if field.value.utf8.contains(where: { Self.isControl($0) && $0 != UInt8(ascii: "\t") }) {
                return .invalid("the \(field.name) header holds a control character")
            }
            let name = field.name.lowercased()
            if limits.singleHeaders.contains(name), !seen.insert(name).inserted {
                return .invalid("the \(field.name) header is repeated")
            }
        }
        if let coding = headers["Transfer-Encoding"] {
            if headers["Content-Length"] != nil {
                return .invalid("Content-Length and Transfer-Encoding together")
            }
            if Self.trimmed(coding).lowercased() != "chunked" {
                return .invalid("Transfer-Encoding must be chunked")
            }
        }
        return nil
    }

    /// Percent-decodes `bytes` into UTF-8 text. Refused: a control character (raw or encoded, NUL included), a raw
    /// space, a `%` not followed by two hex digits, text that is not UTF-8, and (unless `slashAllowed`) an encoded
    /// `/`, which would make one path segment read as two by anything that decodes before routing. A refusal's
    /// message begins with `what`.
    static func decode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool, slashAllowed: Bool, what: String)
        -> Result<String, HeadRefusal>
    {
        let refused: (String) -> Result<String, HeadRefusal> = { .failure(.invalid("\(what) \($0)")) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { return refused("holds a % that is not followed by two hex digits") }
                let value = high << 4 | low
                if isControl(value) { return refused("holds an encoded control character") }
                if value == UInt8(ascii: "/"), !slashAllowed { return refused("holds an encoded / (%2F)") }
                decoded.append(value)
                index += 3
                continue
            }
            if isControl(byte) || byte == UInt8(ascii: " ") { return refused("holds a control character or space") }
            decoded.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { return refused("is not UTF-8") }
        return .success(text)
    }

    private static func trimmed(_ text: String) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[first...last]
    }

    private static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    /// RFC 9110's tchar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
