import APNsCore
import APNsTelemetry
import CLI
import Foundation
import LocalStack
import PushlineConfiguration
import Runtime
import Telemetry
import Worker

/// `pushline-dev demo`: the whole pipeline on one machine, what `make run` shows.
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "run the pipeline end to end on local components and print what came out"
    static let help = """
        Usage: pushline-dev demo

        Starts, in this process, librdkafka's mock Kafka cluster, the APNs simulator (apns-sim) on a
        self-signed certificate, a redis-server on a free port, and one worker of the example app
        \(LocalPipeline.app). When redis-server is not installed, the worker keeps its claims,
        collapse windows and token registry in memory instead (a warning on standard error says
        so; nothing is kept). The worker's metrics are served on a free port of 127.0.0.1
        (/metrics, /healthz, /readyz) while the demo runs; the first line of standard output says
        where. Publishes the example intents of Pipelines/examples/*.json (in name order) to
        \(LocalPipeline.intentsTopic), waits until every one of them shows in the outputs (at most
        \(timeout), progress on standard error), then the quiet-hours example of
        Pipelines/examples/quiet-hours/: the worker's quiet hours (category digest, a few minutes
        around now, UTC) defer it; the demo then moves the worker's clock to the window's end, so
        it is released and sent at once. Then it prints on standard output:

          - the outcomes read back from pushline.outcomes, counted by status and reason;
          - the token events of pushline.token-events;
          - the dead letters of pushline.dlq (reason and the first bytes of the original);
          - how many notifications the simulator's inbox holds;
          - figures read from the metrics: deliveries by status, APNs requests and their latency.

        The simulator knows the token \(unregisteredToken) as unregistered (410). Every example
        intent names one token, so each one yields one outcome. docs/demo.md says what to expect.

        Exit 0 when everything showed up; 1 when something could not start or the outputs did not
        arrive in time.

        Options:
          -h, --help   show this help
        """
    static let arguments = ArgumentSpec()

    /// The token the simulator answers with 410 `Unregistered` (07-unregistered-token.json).
    static let unregisteredToken = String(repeating: "0410", count: 16)
    static let timeout: Duration = .seconds(60)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let directory = SharedFiles.path("Pipelines/examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        let examples = try (files.map { directory + "/" + $0 } + [directory + "/" + quietHoursExample]).map { path in
            (file: URL(fileURLWithPath: path).lastPathComponent, intent: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        let clock = DemoClock()

        let stores = storesOnThisMachine()
        note("starting mock Kafka, \(stores == .redisServer ? "redis-server" : "in-memory stores"), apns-sim and a worker")
        let registry = MetricsRegistry()
        let pipeline: LocalPipeline
        let server: TelemetryServer
        do {
            pipeline = try LocalPipeline(stores: stores, unregistered: [(token: try DeviceToken(unregisteredToken), at: 1_700_000_000_000)],
                                         telemetry: WorkerTelemetry(registry: registry),
                                         senderMetrics: try SenderMetricsRecorder(registry: registry),
                                         configure: { configuration in
                                             configuration.policies.frequencyCaps.rules = demoCaps
                                             configuration.policies.quietHours = demoQuietHours(around: clock.wallClock)
                                             configuration.wallClock = clock.wallClock
                                         })
            server = try TelemetryServer(registry: registry) { [worker = pipeline.worker] in worker.isReady }
        } catch {
            note("could not start: \(error)")
            return 1
        }
        let metricsURL = "http://127.0.0.1:\(server.port)"
        print("== Metrics while the demo runs: \(metricsURL)/metrics \(metricsURL)/healthz \(metricsURL)/readyz\n")
        fflush(nil)  // shown now, not when the demo ends
        note("Kafka \(pipeline.cluster.bootstrapServers), \(pipeline.redis.map { "redis-server :\($0.port)" } ?? "in-memory stores"), "
            + "apns-sim :\(pipeline.harness.devicePort), metrics :\(server.port)")
        let outputs: [(topic: String, value: [UInt8])]
        do {
            outputs = try publish(examples, to: pipeline, clock: clock)
        } catch {
            note("\(error)")
            try pipeline.stop()
            server.stop()
            return 1
        }
        let inbox = pipeline.harness.simulator.inbox().count
        try pipeline.stop()
        server.stop()
        printReport(outputs, inbox: inbox)
        printMetrics(DemoMetrics(registry: registry), servedAt: metricsURL)
        return 0
    }

    /// The demo's frequency cap (docs/policies.md): one `marketing` notification per device and hour,
    /// so the second cart reminder of the examples is `suppressed`/`FrequencyCapped`.
    private static let demoCaps = [DeliveryPolicies.FrequencyCaps.Rule(category: "marketing", limit: .init(limit: 1, window: .seconds(3_600)))]

    /// The example the demo's quiet hours defer (`policy_category: digest`).
    static let quietHoursExample = "quiet-hours/11-weekly-digest.json"

    /// The demo's quiet hours: deliveries of the category `digest`, from a minute before now to
    /// three minutes after it (UTC), so the example published after the others falls inside, and
    /// released 100 ms after the demo moves the worker's clock to the window's end.
    private static func demoQuietHours(around clock: WallClock) -> QuietHoursConfiguration {
        let minute = Int(clock.millisecondsSinceEpoch() / 60_000 % 1_440)
        let time = { (minutes: Int) in TimeOfDay(hour: (minutes + 1_440) % 1_440 / 60, minute: (minutes + 1_440) % 60)! }
        var window = QuietHoursConfiguration(start: time(minute - 1), end: time(minute + 3), coverage: .categories(["digest"]))
        window.releaseInterval = .milliseconds(100)
        return window
    }

    /// A redis-server when one is installed; otherwise in-memory stores, with a warning that says
    /// what is missing and what the demo does instead.
    private static func storesOnThisMachine() -> LocalPipeline.Stores {
        if (try? ExternalCommand.locate("redis-server", package: "redis-server")) != nil { return .redisServer }
        note("""
            warning: redis-server is not installed (Debian package redis-server; scripts/setup.sh \
            installs it). The worker keeps its idempotency claims, collapse windows and token registry \
            in memory instead, with the same rules; nothing is kept after the demo ends.
            """)
        return .inMemory
    }

    /// Publishes the intents one at a time, each once the one before has its outcome (so the
    /// duplicate arrives as a redelivery would); moves the worker's clock to the end of the quiet
    /// hours of what was deferred and waits for its final outcome; then waits for a dead letter per
    /// `invalid` outcome and a token event per 410; returns every output read.
    private static func publish(_ examples: [(file: String, intent: [UInt8])], to pipeline: LocalPipeline,
                                clock: DemoClock) throws -> [(topic: String, value: [UInt8])] {
        var deferred: [(file: String, releaseAt: Int64)] = []
        for (index, (file, intent)) in examples.enumerated() {
            try pipeline.publish([intent])
            let outcomes = records(try pipeline.outputs(timeout: timeout, waitingFor: "the outcome of \(file)") {
                records($0, on: "pushline.outcomes").count > index
            }, on: "pushline.outcomes")
            let last = outcomes[index]
            note("\(index + 1)/\(examples.count) \(file): \(last["status"] as? String ?? "?") \(last["reason"] as? String ?? "")")
            if let releaseAt = (last["release_at"] as? NSNumber)?.int64Value { deferred.append((file, releaseAt)) }
        }
        for (offset, (file, releaseAt)) in deferred.enumerated() {
            note("\(file): deferred until \(WallClock { releaseAt * 1_000_000 }.utcTimestamp()); moving the worker's clock there")
            clock.skip(to: releaseAt)
            let released = records(try pipeline.outputs(timeout: timeout, waitingFor: "the release of \(file)") {
                records($0, on: "pushline.outcomes").count > examples.count + offset
            }, on: "pushline.outcomes")[examples.count + offset]
            note("released \(file): \(released["status"] as? String ?? "?") \(released["reason"] as? String ?? "")")
        }
        return try pipeline.outputs(timeout: timeout, waitingFor: "the dead letters and token events") { received in
            let outcomes = records(received, on: "pushline.outcomes")
            return records(received, on: "pushline.dlq").count >= outcomes.count { $0["status"] as? String == "invalid" }
                && records(received, on: "pushline.token-events").count >= outcomes.count { $0["apns_status"] as? Int == 410 }
        }
    }

    private static func printReport(_ outputs: [(topic: String, value: [UInt8])], inbox: Int) {
        let outcomes = records(outputs, on: "pushline.outcomes")
        print("== Outcomes (pushline.outcomes): \(outcomes.count)")
        let counts = Dictionary(grouping: outcomes) { outcome in
            [outcome["status"] as? String ?? "?", outcome["reason"] as? String ?? "-", (outcome["apns_status"] as? Int).map(String.init) ?? "-"]
        }
        print(row("STATUS", "REASON", "APNS", "COUNT"))
        for key in counts.keys.sorted(by: { $0.joined(separator: " ") < $1.joined(separator: " ") }) {
            print(row(key[0], key[1], key[2], "\(counts[key]?.count ?? 0)"))
        }

        let tokenEvents = records(outputs, on: "pushline.token-events")
        print("\n== Token events (pushline.token-events): \(tokenEvents.count)")
        for event in tokenEvents {
            let removed = event["removed_from_registry"] as? Bool ?? false
            print(row(event["kind"] as? String ?? "?", event["token"] as? String ?? "?") + " removed_from_registry=\(removed)")
        }

        let deadLetters = records(outputs, on: "pushline.dlq")
        print("\n== Dead letters (pushline.dlq): \(deadLetters.count)")
        for letter in deadLetters {
            let original = (letter["original_text"] as? String ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            print(row(letter["reason"] as? String ?? "?", String(original.prefix(48)) + (original.count > 48 ? "…" : "")))
        }

        print("\n== Simulator inbox: \(inbox) notification(s)")
    }

    /// The figures read from the metrics registry once the worker has stopped.
    private static func printMetrics(_ metrics: DemoMetrics, servedAt url: String) {
        print("\n== Metrics (served at \(url)/metrics while the demo ran)")
        let statuses = metrics.deliveriesByStatus.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        print("pushline_deliveries_total by status: " + statuses.joined(separator: " "))
        guard let median = metrics.apnsLatencyMedianBound else {
            print("pushline_apns_latency_seconds: no requests")
            return
        }
        let mean = metrics.apnsLatencySum / Double(metrics.apnsRequests)
        print("pushline_apns_latency_seconds: \(metrics.apnsRequests) requests, mean \(milliseconds(mean)), p50 <= \(milliseconds(median))")
    }

    /// Seconds as milliseconds with one decimal (`+Inf` for the last bucket's bound).
    private static func milliseconds(_ seconds: Double) -> String {
        seconds.isFinite ? String(format: "%.1f ms", seconds * 1000) : "+Inf"
    }

    private static func records(_ outputs: [(topic: String, value: [UInt8])], on topic: String) -> [[String: Any]] {
        outputs.filter { $0.topic == topic }.map { (try? JSONSerialization.jsonObject(with: Data($0.value))) as? [String: Any] ?? [:] }
    }

    /// Columns padded (never cut) to 14, 24 and 6 characters, the last one as it is.
    private static func row(_ columns: String...) -> String {
        zip(columns.dropLast(), [14, 24, 6]).map { text, width in text + String(repeating: " ", count: max(1, width - text.count)) }.joined()
            + (columns.last ?? "")
    }

    private static func note(_ message: String) {
        FileHandle.standardError.write(Data("pushline-dev demo: \(message)\n".utf8))
    }
}
