import Foundation
import TestSupport
import Testing

/// A real Prometheus (Debian's `prometheus`, installed by scripts/setup) scrapes the API's `/metrics` over its socket
/// and stores its series. Skipped when the binary is missing, as the issue allows.
@Suite struct PrometheusScrapeTests {
    static let prometheus = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: prometheus != nil, "prometheus is not installed")) func aRealPrometheusScrapesServe()
        async throws
    {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let sent = await api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: #"{"user":"nobody","payload":{"aps":{"alert":"hi"}}}"#)
            #expect(sent.status == 202, "\(sent.text)")

            let target = String(api.base.dropFirst("http://".count))
            let config = try api.write(
                "prometheus.yml",
                """
                global:
                  scrape_interval: 2s
                  scrape_timeout: 2s
                scrape_configs:
                  - job_name: apnsd
                    static_configs:
                      - targets: ["\(target)"]
                """)
            let port = Ports.free()
            let log = api.folder.appendingPathComponent("prometheus.log")
            let process = try ChildProcess(
                Self.prometheus!,
                [
                    "--config.file=\(config)", "--storage.tsdb.path=\(api.folder.appendingPathComponent("tsdb").path)",
                    "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
                ], stdout: .file(log.path), stderr: .standardOutput)
            defer { process.stop(signal: SIGKILL) }
            let query =
                "http://127.0.0.1:\(port)/api/v1/query?query=apnsd_notifications_enqueued_total%7Bsource%3D%22notifications%22%7D"
            var answer = ""
            let stored = await Poll.until(90, every: 0.5) {
                answer = await HTTPClient.request("GET", query, headers: [])?.body ?? ""
                return answer.contains(#""job":"apnsd""#) && answer.contains(#","1"]"#)
            }
            let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(stored, "Prometheus never stored the series: \(answer)\n\(logText.suffix(2000))")
            // The target's health is its last scrape's: on a loaded machine one may time out; a later one succeeds.
            var targets = ""
            let up = await Poll.until(90, every: 0.5) {
                let url = "http://127.0.0.1:\(port)/api/v1/targets"
                targets = await HTTPClient.request("GET", url, headers: [])?.body ?? ""
                return targets.contains(#""health":"up""#)
            }
            #expect(up, "\(targets)")
        }
    }
}
