import Metrics
import Testing

@Suite struct BoundingTests {
    @Test func aValueNotAllowedIsRecordedAsOther() {
        let registry = MetricsRegistry()
        let family = registry.counter(
            "d_total", help: "D.", labels: [MetricLabel("reason", allowed: ["BadTopic", "Unregistered"])])
        family.increment("BadTopic")
        family.increment("Transport:timeout")
        family.increment("made up by the network")
        #expect(family.labels("whatever").value == 2)
        #expect(registry.render().contains(#"d_total{reason="other"} 2"#))
        #expect(!registry.render().contains("Transport"))
    }

    @Test func seriesBeyondTheCapGoToOther() {
        let registry = MetricsRegistry()
        let family = registry.counter(
            "r_total", help: "R.", labels: [MetricLabel("route"), MetricLabel("code")], maxSeries: 3)
        for i in 0..<100 { family.increment("/path/\(i)", "200") }
        let lines = registry.render().split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count == 4, "3 series plus other: \(lines)")
        #expect(lines.contains(#"r_total{route="other",code="other"} 97"#))
        #expect(lines.contains(#"r_total{route="/path/0",code="200"} 1"#))
    }

    @Test func concurrentIncrementsSumCorrectly() async {
        let registry = MetricsRegistry()
        let family = registry.counter("c_total", help: "C.", labels: [MetricLabel("k")])
        let latency = registry.histogram("h_seconds", help: "H.", buckets: [1])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<32 {
                group.addTask {
                    for i in 0..<2_000 {
                        family.increment(task % 2 == 0 ? "even" : "odd")
                        latency.observe(i % 2 == 0 ? 0.5 : 2)
                    }
                }
            }
        }
        #expect(family.labels("even").value == 32_000 && family.labels("odd").value == 32_000)
        let text = registry.render()
        #expect(
            text.contains(#"h_seconds_bucket{le="1"} 32000"#) && text.contains(#"h_seconds_bucket{le="+Inf"} 64000"#)
                && text.contains("h_seconds_count 64000"), "\(text)")
    }
}
