import Metrics
import Testing

@Suite struct RenderTests {
    @Test func aSmallRegistryRendersExactly() {
        let registry = MetricsRegistry()
        let requests = registry.counter(
            "app_requests_total", help: "Requests.", labels: [MetricLabel("method"), MetricLabel("code")])
        let temperature = registry.gauge("app_temperature_celsius", help: "Temperature.")
        let up = registry.counter("app_a_total", help: "Declared without labels: 0 before any event.")
        requests.increment("POST", "200")
        requests.increment("GET", "200", by: 2)
        requests.increment("GET", "404")
        temperature.labels().set(-1.5)
        _ = up
        #expect(
            registry.render() == """
                # HELP app_a_total Declared without labels: 0 before any event.
                # TYPE app_a_total counter
                app_a_total 0
                # HELP app_requests_total Requests.
                # TYPE app_requests_total counter
                app_requests_total{method="GET",code="200"} 2
                app_requests_total{method="GET",code="404"} 1
                app_requests_total{method="POST",code="200"} 1
                # HELP app_temperature_celsius Temperature.
                # TYPE app_temperature_celsius gauge
                app_temperature_celsius -1.5

                """)
    }

    @Test func helpAndLabelValuesAreEscaped() {
        let registry = MetricsRegistry()
        let family = registry.counter("x_total", help: "a \\ b\nc \"q\"", labels: [MetricLabel("v")])
        family.increment("back\\slash \"quoted\"\nnewline")
        #expect(
            registry.render() == """
                # HELP x_total a \\\\ b\\nc "q"
                # TYPE x_total counter
                x_total{v="back\\\\slash \\"quoted\\"\\nnewline"} 1

                """)
    }

    @Test func histogramBucketsAreCumulative() {
        let registry = MetricsRegistry()
        let latency = registry.histogram(
            "rpc_seconds", help: "Latency.", labels: [MetricLabel("op")], buckets: [0.1, 0.5, 1])
        for value in [0.05, 0.1, 0.3, 0.7, 0.9, 3] { latency.observe(value, "get") }
        #expect(
            registry.render() == """
                # HELP rpc_seconds Latency.
                # TYPE rpc_seconds histogram
                rpc_seconds_bucket{op="get",le="0.1"} 2
                rpc_seconds_bucket{op="get",le="0.5"} 3
                rpc_seconds_bucket{op="get",le="1"} 5
                rpc_seconds_bucket{op="get",le="+Inf"} 6
                rpc_seconds_sum{op="get"} 5.05
                rpc_seconds_count{op="get"} 6

                """)
    }

    @Test func valuesAreFormattedForPrometheus() {
        #expect(PrometheusText.format(3) == "3")
        #expect(PrometheusText.format(0.25) == "0.25")
        #expect(PrometheusText.format(.infinity) == "+Inf")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(.nan) == "NaN")
    }

    @Test func aSampledGaugeIsReadAtScrapeTime() {
        let registry = MetricsRegistry()
        let depth = Depth()
        _ = registry.gauge("queue_depth", help: "Depth.", labels: [MetricLabel("class", allowed: ["a", "b"])]) {
            [(["b"], depth.value), (["a"], 1), (["zzz"], 4), (["yyy"], 5)]
        }
        depth.value = 7
        #expect(
            registry.render().hasSuffix(
                """
                queue_depth{class="a"} 1
                queue_depth{class="b"} 7
                queue_depth{class="other"} 9

                """))
    }
}

final class Depth: @unchecked Sendable {
    var value: Double = 0
}
