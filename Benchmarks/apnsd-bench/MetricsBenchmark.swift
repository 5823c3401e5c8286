import APNs
import Foundation
import Metrics
import QueueModel
import Store

/// `apnsd-bench metrics`: fills a database with DEVICES devices (a tenth deactivated) and one bulk campaign expanded
/// to a delivery per device, plus some leased and retried rows, then times `Store.gauges(now:)` and a whole
/// `/metrics` render (the gauges read through the store actor, then the text) REPEAT times each.
enum MetricsBenchmark {
    static func run(database: String, devices: Int, repeats: Int) async {
        do {
            try await measure(database: database, devices: devices, repeats: repeats)
        } catch {
            fail("\(error)")
        }
    }

    private static func measure(database: String, devices: Int, repeats: Int) async throws {
        let store = try await Store.open(at: database)
        let topic = "com.example.bench"
        var start = ContinuousClock.now
        let batch = 100_000
        for first in stride(from: 0, to: devices, by: batch) {
            let registrations = try (first..<min(devices, first + batch)).map { index in
                DeviceRegistration(
                    token: try DeviceToken(String(format: "%048llx%016llx", UInt64(index), splitmix(UInt64(index)))),
                    topic: topic)
            }
            _ = try await store.importDevices(registrations)
        }
        emit("import_seconds", String(format: "%.1f", seconds(since: start)))
        let content = try NotificationContent(bundleID: topic, payload: Payload(json: #"{"aps":{"alert":"bench"}}"#))
        _ = try await store.createCampaign(CampaignSpec(kind: .bulk, audience: .all(), content: content))
        start = ContinuousClock.now
        while try await store.expandDueCampaigns(now: Date(), pageSize: 10_000, maxPages: 100).moreRemaining {}
        emit("expand_seconds", String(format: "%.1f", seconds(since: start)))
        // Some rows leased, some answered (a tenth of the devices deactivated by 410s), some waiting for a retry.
        let worker = try await store.registerWorker(host: "bench", pid: 1, now: Date())
        let claimed = try await store.claim(now: Date(), limit: devices / 5, leaseFor: .seconds(30), worker: worker)
        let answered =
            claimed.prefix(devices / 10).map { DeliveryResult.unregistered($0, reason: .unregistered, timestamp: nil) }
            + claimed.dropFirst(devices / 10).prefix(devices / 20).map {
                DeliveryResult.retry($0, at: Date().addingTimeInterval(600))
            }
        for part in stride(from: 0, to: answered.count, by: 10_000) {
            _ = try await store.record(
                Array(answered[part..<min(answered.count, part + 10_000)]), by: worker, now: Date())
        }

        let gauges = try await store.gauges(now: Date())
        emit("pending_bulk", gauges.pendingBulk)
        emit("devices_active", gauges.activeDevices)
        emit("devices_inactive", gauges.inactiveDevices)
        emit("oldest_due_age_seconds", String(format: "%.3f", gauges.oldestDueAge))
        var queries: [Double] = []
        for _ in 0..<repeats {
            let begin = ContinuousClock.now
            _ = try await store.gauges(now: Date())
            queries.append(seconds(since: begin))
        }
        report("gauges", queries)

        let metrics = populatedMetrics()
        var renders: [Double] = []
        var bytes = 0
        for _ in 0..<repeats {
            let begin = ContinuousClock.now
            metrics.update(try await store.gauges(now: Date()))
            bytes = metrics.render().utf8.count
            renders.append(seconds(since: begin))
        }
        report("render", renders)
        emit("render_bytes", bytes)
        await store.close()
    }

    /// apnsd's families with the series a busy worker has: every delivery status and reason, every APNs status.
    private static func populatedMetrics() -> APNsdMetrics {
        let metrics = APNsdMetrics(version: "bench")
        for reason in Reason.documented { metrics.delivered(.rejected, reason: reason.reason) }
        metrics.delivered(.accepted, reason: nil)
        for status in [200, 400, 403, 404, 405, 410, 413, 429, 500, 503, nil] {
            for environment in [Environment.production, .development] {
                metrics.apnsRequest(environment, status: status, seconds: 0.05)
            }
        }
        for route in ["/healthz", "/readyz", "/metrics"] {
            metrics.httpRequest(route: route, code: 200, seconds: 0.001)
        }
        return metrics
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Median, 99th percentile and maximum of `samples`, in microseconds.
    private static func report(_ name: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        let micro = { (value: Double) in String(format: "%.1f", value * 1e6) }
        emit("\(name)_us_median", micro(sorted[sorted.count / 2]))
        emit("\(name)_us_p99", micro(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]))
        emit("\(name)_us_max", micro(sorted[sorted.count - 1]))
    }
}
