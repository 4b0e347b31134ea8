import Foundation
import PushlineTestKit
import Telemetry
import Testing

@Suite("Prometheus text exposition")
struct PrometheusExpositionTests {
    @Test("families are sorted by name with HELP and TYPE, counters and gauges one line per label set")
    func countersAndGauges() throws {
        let registry = MetricsRegistry()
        let results = try registry.makeCounterFamily(name: "pushline_test_results_total", labelNames: ["pool", "outcome"],
                                                     help: "Results.")
        results.metric(labelValues: ["b", "accepted"]).increment(by: 2)
        results.metric(labelValues: ["a", "rejected"]).increment()
        try registry.makeGauge(label: "pushline_test_connections", help: "Open connections.").record(3)
        _ = try registry.makeCounterFamily(name: "pushline_test_unused_total", labelNames: ["pool"], help: "Never used.")
        #expect(registry.exposition == """
            # HELP pushline_test_connections Open connections.
            # TYPE pushline_test_connections gauge
            pushline_test_connections 3
            # HELP pushline_test_results_total Results.
            # TYPE pushline_test_results_total counter
            pushline_test_results_total{pool="a",outcome="rejected"} 1
            pushline_test_results_total{pool="b",outcome="accepted"} 2

            """)
    }

    @Test("label values escape backslash, quote and newline; help escapes backslash and newline")
    func escaping() throws {
        let registry = MetricsRegistry()
        try registry.makeCounter(label: "pushline_test_events_total", dimensions: [("reason", "a\\b\"c\nd")],
                                 help: "Line one\nline \\two \"quoted\"").increment()
        #expect(registry.exposition == #"""
            # HELP pushline_test_events_total Line one\nline \\two "quoted"
            # TYPE pushline_test_events_total counter
            pushline_test_events_total{reason="a\\b\"c\nd"} 1

            """#)
    }

    @Test("histogram buckets are cumulative, inclusive, end in +Inf, with _sum and _count")
    func histogramSamples() throws {
        let registry = MetricsRegistry()
        let histogram = try registry.makeHistogram(label: "pushline_test_batch_size", dimensions: [("pool", "a")],
                                                   buckets: [1, 2.5, 10])
        for value in [0.5, 1, 2, 3, 10, 50] as [Double] {
            histogram.record(value)
        }
        #expect(registry.exposition == """
            # TYPE pushline_test_batch_size histogram
            pushline_test_batch_size_bucket{pool="a",le="1"} 2
            pushline_test_batch_size_bucket{pool="a",le="2.5"} 3
            pushline_test_batch_size_bucket{pool="a",le="10"} 5
            pushline_test_batch_size_bucket{pool="a",le="+Inf"} 6
            pushline_test_batch_size_sum{pool="a"} 66.5
            pushline_test_batch_size_count{pool="a"} 6

            """)
    }

    @Test("a timer is a histogram in seconds")
    func timerSamples() throws {
        let registry = MetricsRegistry()
        try registry.makeTimer(label: "pushline_test_latency_seconds", buckets: [0.005, 0.1]).recordMilliseconds(50)
        #expect(registry.exposition == """
            # TYPE pushline_test_latency_seconds histogram
            pushline_test_latency_seconds_bucket{le="0.005"} 0
            pushline_test_latency_seconds_bucket{le="0.1"} 1
            pushline_test_latency_seconds_bucket{le="+Inf"} 1
            pushline_test_latency_seconds_sum 0.05
            pushline_test_latency_seconds_count 1

            """)
    }

    @Test("promtool check metrics accepts the exposition of every metric type with awkward label values")
    func promtoolAcceptsExposition() throws {
        let registry = MetricsRegistry()
        let results = try registry.makeCounterFamily(name: "pushline_test_results_total", labelNames: ["pool", "reason"],
                                                     help: "Results with \"quotes\" and a \\ backslash.")
        results.metric(labelValues: ["production", "BadDeviceToken"]).increment(by: 3)
        results.metric(labelValues: ["quote\"slash\\newline\n", "ünïcödé"]).increment()
        try registry.makeGauge(label: "pushline_test_free_stream_capacity", dimensions: [("pool", "p")], help: "Free streams.")
            .record(-1.5)
        try registry.makeHistogram(label: "pushline_test_payload_bytes", help: "Payload sizes.").record(512)
        try registry.makeTimer(label: "pushline_test_latency_seconds", dimensions: [("pool", "p")], help: "Latency.")
            .recordNanoseconds(3_000_000)
        try PromtoolCheck.expectAccepted(registry.exposition)
    }
}
