import APNs
import Foundation

/// The URLs an operator configures: APNs base URLs and the proxy. Checked when the setting is read, so a typo
/// stops the command (exit 64) instead of failing every delivery.
public enum ServiceURL {
    /// An APNs base URL: `https://host[:port]`, nothing else (no user, path, query or fragment). Returned
    /// without a trailing slash.
    public static func validateBase(_ text: String, setting: String) throws(IntakeError) -> String {
        let parts = try components(
            text, setting: setting, schemes: ["https"], what: "an https:// URL such as https://api.push.apple.com")
        guard parts.user == nil, parts.password == nil else {
            throw IntakeError("\(setting) must not carry a user or password")
        }
        guard parts.percentEncodedPath.isEmpty || parts.percentEncodedPath == "/" else {
            throw IntakeError(
                "\(setting) must be scheme, host and port only, without the path '\(parts.percentEncodedPath)'")
        }
        guard parts.percentEncodedQuery == nil else { throw IntakeError("\(setting) must not have a query ('?…')") }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// A webhook URL: `http://` or `https://`, host, optional port, path and query; no user, password or fragment.
    public static func validateWebhook(_ text: String, setting: String) throws(IntakeError) -> String {
        let parts = try components(
            text, setting: setting, schemes: ["http", "https"],
            what: "an http:// or https:// URL such as https://backend.example/apnsd-events")
        guard parts.user == nil, parts.password == nil else {
            throw IntakeError("\(setting) must not carry a user or password")
        }
        return text
    }

    /// A proxy URL: `http://` or `https://`, optionally with `user:password@` (never logged), host and port.
    public static func validateProxy(_ text: String, setting: String) throws(IntakeError) -> String {
        let parts = try components(
            text, setting: setting, schemes: ["http", "https"],
            what: "an http:// or https:// proxy URL such as http://proxy.example:3128")
        guard parts.percentEncodedQuery == nil, parts.percentEncodedPath.isEmpty || parts.percentEncodedPath == "/"
        else {
            throw IntakeError("\(setting) must be scheme, [user:password@]host and port only")
        }
        return text
    }

    /// `text` without any password, for logs.
    public static func redacted(_ text: String) -> String {
        guard var parts = URLComponents(string: text), parts.password != nil || parts.user != nil else { return text }
        parts.user = parts.user.map { _ in "***" }
        parts.password = nil
        return parts.string ?? "(proxy)"
    }

    private static func components(_ text: String, setting: String, schemes: Set<String>, what: String)
        throws(IntakeError) -> URLComponents
    {
        let shown = Printable.escaped(String(ServiceURL.redacted(text).prefix(120)))
        guard Printable.isPrintable(text), !text.contains(" "), let parts = URLComponents(string: text),
            let scheme = parts.scheme?.lowercased(), schemes.contains(scheme), let host = parts.host, !host.isEmpty
        else {
            throw IntakeError("\(setting) must be \(what), got '\(shown)'")
        }
        guard parts.fragment == nil, !text.contains("#") else {
            throw IntakeError("\(setting) must not have a fragment ('#…'), got '\(shown)'")
        }
        if let port = parts.port, !(1...65535).contains(port) {
            throw IntakeError("\(setting) has port \(port); a port is 1 to 65535")
        }
        if parts.port == nil, let range = text.range(of: host), text[range.upperBound...].hasPrefix(":") {
            throw IntakeError("\(setting) has an invalid port in '\(shown)'")
        }
        return parts
    }
}
