import Telemetry
import Testing

@Suite("Metrics: counters, gauges, histograms, timers")
struct MetricsTests {
    private static let tasks = 8
    private static let updatesPerTask = 10_000

    /// Runs `update` `updatesPerTask` times in each of `tasks` concurrent tasks.
    private func concurrently(_ update: @escaping @Sendable (_ task: Int) -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    for _ in 0..<Self.updatesPerTask { update(task) }
                }
            }
        }
    }

    @Test("a counter updated from many tasks counts every increment")
    func counterIsExactUnderConcurrency() async throws {
        let counter = try MetricsRegistry().makeCounter(label: "pushline_test_events_total")
        await concurrently { _ in counter.increment() }
        counter.increment(by: 5)
        #expect(counter.value == Int64(Self.tasks * Self.updatesPerTask) + 5)
    }

    @Test("a gauge incremented and decremented from many tasks ends exact")
    func gaugeIsExactUnderConcurrency() async throws {
        let gauge = try MetricsRegistry().makeGauge(label: "pushline_test_inflight")
        await concurrently { task in
            if task.isMultiple(of: 2) { gauge.increment(by: 3) } else { gauge.decrement() }
        }
        #expect(gauge.value == Double(Self.tasks / 2 * Self.updatesPerTask * 3 - Self.tasks / 2 * Self.updatesPerTask))
        gauge.record(7)
        #expect(gauge.value == 7)
        gauge.set(to: 2.5)
        #expect(gauge.value == 2.5)
    }

    @Test("a histogram recorded from many tasks has exact count and sum")
    func histogramIsExactUnderConcurrency() async throws {
        let histogram = try MetricsRegistry().makeHistogram(label: "pushline_test_batch_size", buckets: [1, 10, 100])
        await concurrently { task in histogram.record(task) }
        #expect(histogram.count == Int64(Self.tasks * Self.updatesPerTask))
        #expect(histogram.sum == Double((0..<Self.tasks).reduce(0, +) * Self.updatesPerTask))
    }

    @Test("a timer converts nanoseconds, milliseconds and seconds to seconds")
    func timerRecordsSeconds() throws {
        let timer = try MetricsRegistry().makeTimer(label: "pushline_test_latency_seconds")
        timer.recordNanoseconds(250_000_000)
        timer.recordMilliseconds(500)
        timer.recordSeconds(1.25)
        #expect(timer.count == 3)
        #expect(timer.sumSeconds == 2.0)
    }

    @Test("the same name and labels give the same metric; other label values another")
    func registryDeduplicates() throws {
        let registry = MetricsRegistry()
        let first = try registry.makeCounter(label: "pushline_test_events_total", dimensions: [("pool", "a")])
        let again = try registry.makeCounter(label: "pushline_test_events_total", dimensions: [("pool", "a")])
        let other = try registry.makeCounter(label: "pushline_test_events_total", dimensions: [("pool", "b")])
        #expect(first === again)
        #expect(first !== other)
        let family = try registry.makeCounterFamily(name: "pushline_test_events_total", labelNames: ["pool"])
        #expect(family.metric(labelValues: ["a"]) === first)
    }

    @Test("label values given inline find the member the same values as an array find, the last one looked up or another")
    func inlineLabelValues() throws {
        let family = try MetricsRegistry().makeCounterFamily(name: "pushline_test_results_total", labelNames: ["pool", "status"])
        let accepted = family.metric(labelValues: ["a", "200"])
        #expect(family.metric(["a", "200"] as InlineArray) === accepted)  // the member looked up last
        let rejected = family.metric(["a", "400"] as InlineArray)  // another: made, then kept
        #expect(rejected !== accepted)
        #expect(family.metric(labelValues: ["a", "400"]) === rejected)
        #expect(family.metric(["a", "200"] as InlineArray) === accepted)  // not the last: found by its values
        accepted.increment()
        rejected.increment(by: 2)
        #expect(family.metric(labelValues: ["a", "200"]).value == 1)
        #expect(family.metric(labelValues: ["a", "400"]).value == 2)
    }

    @Test("names that break the naming rules are refused with the rule", arguments: [
        ("pushline_events", "counter", "_total"),
        ("events_total", "counter", "pushline_"),
        ("pushline_Events_total", "counter", "snake_case"),
        ("pushline__events_total", "counter", "snake_case"),
        ("pushline:events_total", "counter", "snake_case"),
        ("pushline_inflight_total", "gauge", "only counters"),
        ("pushline_latency_milliseconds", "histogram", "base unit"),
        ("pushline_payload_kb", "gauge", "base unit"),
        ("pushline_queue_count", "gauge", "_count is reserved"),
        ("pushline_latency", "timer", "_seconds"),
    ])
    func invalidNamesAreRefused(name: String, kind: String, rule: String) {
        let registry = MetricsRegistry()
        let error = #expect(throws: MetricsRegistryError.self) {
            switch kind {
            case "counter": _ = try registry.makeCounter(label: name)
            case "gauge": _ = try registry.makeGauge(label: name)
            case "histogram": _ = try registry.makeHistogram(label: name)
            default: _ = try registry.makeTimer(label: name)
            }
        }
        #expect(error?.code == .invalidName)
        #expect(error?.name == name)
        #expect(error?.detail.contains(rule) == true, "\(error?.detail ?? "") mentions \(rule)")
    }

    @Test("label names must be snake_case, unique, and not le on histograms")
    func invalidLabelNamesAreRefused() {
        let registry = MetricsRegistry()
        let cases: [(labels: [String], detail: String)] = [
            (["Pool"], "label Pool: use snake_case"),
            (["__name"], "label __name: use snake_case"),
            (["pool", "pool"], "label pool appears twice"),
        ]
        for (labels, detail) in cases {
            #expect(throws: MetricsRegistryError(code: .invalidLabelName, name: "pushline_test_events_total", detail: detail)) {
                try registry.makeCounterFamily(name: "pushline_test_events_total", labelNames: labels)
            }
        }
        let error = #expect(throws: MetricsRegistryError.self) {
            try registry.makeHistogramFamily(name: "pushline_test_batch_size", labelNames: ["le"])
        }
        #expect(error?.code == .invalidLabelName)
    }

    @Test("buckets must be finite, strictly ascending and not empty")
    func invalidBucketsAreRefused() {
        let registry = MetricsRegistry()
        for buckets in [[], [1, 1], [2, 1], [1, Double.infinity], [Double.nan]] as [[Double]] {
            let error = #expect(throws: MetricsRegistryError.self) {
                try registry.makeHistogram(label: "pushline_test_batch_size", buckets: buckets)
            }
            #expect(error?.code == .invalidBuckets)
        }
    }

    @Test("registering a name again with another type, labels or buckets is a conflict")
    func conflictingRegistrationsAreRefused() throws {
        let registry = MetricsRegistry()
        _ = try registry.makeHistogram(label: "pushline_test_latency_seconds", dimensions: [("pool", "a")], buckets: [1, 2])
        let attempts: [() throws -> Void] = [
            { _ = try registry.makeTimer(label: "pushline_test_latency_seconds", dimensions: [("pool", "a")], buckets: [1, 2]) },
            { _ = try registry.makeHistogram(label: "pushline_test_latency_seconds", dimensions: [("team", "a")], buckets: [1, 2]) },
            { _ = try registry.makeHistogram(label: "pushline_test_latency_seconds", dimensions: [("pool", "a")], buckets: [1, 3]) },
        ]
        for attempt in attempts {
            let error = #expect(throws: MetricsRegistryError.self) { try attempt() }
            #expect(error?.code == .conflictingRegistration)
        }
    }
}
