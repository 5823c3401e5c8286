import Foundation

/// The `nghttp` client from nghttp2, for what curl does not show: the server's SETTINGS frames.
enum NGHTTP {
    struct Run {
        var output: String
        /// The `:status` of every response, in order.
        var statuses: [Int]
        /// SETTINGS_MAX_CONCURRENT_STREAMS of every SETTINGS frame received that carried it, in order.
        var maxConcurrentStreams: [Int]
    }

    /// POSTs `requests` pushes to `token` over one connection (`-m`) with `nghttp -v`, and reads the frames it logs;
    /// with `getPath`, GETs that path instead.
    static func run(_ mock: MockHarness, requests: Int, authorization: String?, token: String, getPath: String? = nil)
        throws -> Run
    {
        var arguments = ["-v", "-n", "--no-dep", "-t", "10", "-m", String(requests)]
        if getPath == nil {
            let payload = try mock.directory.write("nghttp-\(UUID().uuidString).json", #"{"aps":{"alert":"hi"}}"#)
            arguments += ["-d", payload, "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert"]
        }
        if let authorization { arguments += ["-H", "authorization: \(authorization)"] }
        arguments.append("https://127.0.0.1:\(mock.port)" + (getPath ?? "/3/device/\(token)"))
        let result = try ProcessRunner.run("nghttp", arguments, in: mock.directory)
        var statuses: [Int] = []
        var maxStreams: [Int] = []
        var inReceivedSettings = false
        for line in result.stdout.split(separator: "\n") {
            if line.contains("recv SETTINGS frame") {
                inReceivedSettings = true
            } else if line.hasPrefix("[") {
                inReceivedSettings = false
            }
            if inReceivedSettings, let range = line.range(of: "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):") {
                let digits = line[range.upperBound...].prefix { $0.isNumber }
                if let value = Int(digits) { maxStreams.append(value) }
            }
            if line.contains("recv ("), let range = line.range(of: ":status: ") {
                if let value = Int(line[range.upperBound...].prefix { $0.isNumber }) { statuses.append(value) }
            }
        }
        return Run(output: result.stdout + result.stderr, statuses: statuses, maxConcurrentStreams: maxStreams)
    }
}
