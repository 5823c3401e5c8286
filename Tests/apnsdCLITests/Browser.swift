import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's Chromium, headless, driven through chromedriver's W3C WebDriver endpoints (JSON over HTTP, with curl):
/// the explicit paths, never a driver manager (which would download one). Its language (en-US) and time zone (UTC)
/// are pinned, so that what the pages show does not depend on the machine.
final class Browser: Sendable {
    static let chromium = "/usr/bin/chromium"
    static let driverPath = "/usr/bin/chromedriver"

    /// Whether both are installed (`scripts/setup` installs them).
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: chromium)
            && FileManager.default.isExecutableFile(atPath: driverPath)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let driver: ChildProcess
    let profile: String
    /// `http://127.0.0.1:PORT/session/ID`.
    let session: String

    /// Starts chromedriver and a session of a `width` × `height` window.
    init(width: Int = 1280, height: Int = 900) async throws {
        profile =
            FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-chromium-\(UUID().uuidString)")
            .path
        let port = Ports.free()
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        environment["LANG"] = "en_US.UTF-8"
        environment["LANGUAGE"] = "en_US"
        driver = try ChildProcess(
            Self.driverPath, ["--port=\(port)", "--allowed-ips=127.0.0.1"], environment: environment,
            stdout: .null, stderr: .null)
        let base = "http://127.0.0.1:\(port)"
        var ready = false
        for _ in 0..<200 where !ready {
            ready = await HTTPClient.request("GET", base + "/status", headers: []).map { $0.status == 200 } ?? false
            if !ready { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard ready else {
            _ = driver.stop()
            throw Failure(description: "chromedriver did not answer on port \(port)")
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": Self.chromium,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--lang=en-US", "--window-size=\(width),\(height)", "--user-data-dir=\(profile)",
                            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        ],
                        "prefs": ["intl.accept_languages": "en-US"],
                    ],
                    "goog:loggingPrefs": ["browser": "ALL"],
                ]
            ]
        ]
        let answer = try await Self.call("POST", base + "/session", capabilities)
        guard let value = answer as? [String: Any], let id = value["sessionId"] as? String else {
            _ = driver.stop()
            throw Failure(description: "no session: \(answer ?? "nil")")
        }
        session = base + "/session/" + id
    }

    /// Ends the session, chromedriver and Chromium, and removes the profile.
    func quit() async {
        _ = try? await Self.call("DELETE", session, nil)
        _ = driver.stop(signal: SIGTERM)
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// One WebDriver command: its `value`.
    @discardableResult
    static func call(_ method: String, _ url: String, _ body: [String: Any]?) async throws -> Any? {
        let text = try body.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        guard
            let response = await HTTPClient.request(
                method, url, headers: ["Content-Type: application/json"], body: text ?? (method == "POST" ? "{}" : nil),
                curl: ["--max-time", "60"])
        else { throw Failure(description: "chromedriver did not answer \(method) \(url)") }
        let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8), options: [.fragmentsAllowed])
        let value = (object as? [String: Any])?["value"]
        if response.status != 200 {
            let error = value as? [String: Any]
            throw Failure(
                description: "\(method) \(url): \(error?["error"] ?? response.status): \(error?["message"] ?? "")")
        }
        return value
    }

    @discardableResult
    func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await Self.call(method, session + path, body)
    }

    func open(_ url: String) async throws { try await command("POST", "/url", ["url": url]) }

    /// Runs `script` (a function body: `return …`) in the page with `arguments`; its result.
    @discardableResult
    func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// Polls `script` until it returns true, for up to `seconds`; whether it did.
    func waitFor(_ script: String, _ arguments: [Any] = [], seconds: Double = 30) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await run(script, arguments) as? Bool == true { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// The text of what `selector` matches, nil when nothing does.
    func text(_ selector: String) async throws -> String? {
        try await run("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", [selector])
            as? String
    }

    /// The element `selector` matches (its WebDriver reference).
    func element(_ selector: String) async throws -> String {
        let found = try await command("POST", "/element", ["using": "css selector", "value": selector])
        guard let reference = (found as? [String: Any])?.values.first as? String else {
            throw Failure(description: "no element \(selector)")
        }
        return reference
    }

    /// Clicks `selector` as a user does (WebDriver's click: scrolled into view, the topmost element at its centre).
    func click(_ selector: String) async throws {
        try await command("POST", "/element/\(try await element(selector))/click")
    }

    /// Types `text` into `selector` after clearing it.
    func type(_ selector: String, _ text: String) async throws {
        let reference = try await element(selector)
        try await command("POST", "/element/\(reference)/clear")
        try await command("POST", "/element/\(reference)/value", ["text": text])
    }

    /// Makes the page's viewport `width` × `height` CSS pixels, as a phone's or a wide screen's (Chromium's DevTools
    /// emulation: a window cannot be made narrower than about 500 pixels).
    func viewport(width: Int, height: Int, mobile: Bool = false) async throws {
        try await command(
            "POST", "/goog/cdp/execute",
            [
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile],
            ])
    }

    /// The browser's console messages since the last call: (level, message).
    func consoleMessages() async throws -> [(level: String, message: String)] {
        let entries = try await command("POST", "/se/log", ["type": "browser"]) as? [[String: Any]] ?? []
        return entries.map { ($0["level"] as? String ?? "", $0["message"] as? String ?? "") }
    }

    /// Writes a PNG of the window to `path`.
    func screenshot(_ path: String) async throws {
        guard let base64 = try await command("GET", "/screenshot") as? String, let png = Data(base64Encoded: base64)
        else { throw Failure(description: "no screenshot") }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try png.write(to: URL(fileURLWithPath: path))
    }
}
