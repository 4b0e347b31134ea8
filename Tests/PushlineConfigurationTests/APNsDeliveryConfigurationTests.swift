import APNsClient
import PushlineConfiguration
import PushlineTestKit
import Testing

@Suite("apns.retry, apns.circuit, apns.request_timeout, apns.bulk and a pipeline's max_hold")
struct APNsDeliveryConfigurationTests {
    private static let delivery = """

          retry:
            max_attempts: 7
            backoff: 250ms
            max_backoff: 20s
          circuit:
            threshold: 8
            window: 12
            probe_interval: 2s
            max_probe_interval: 1m
          request_timeout: 5s
          bulk:
            streams: 40
            quiet: 250ms
        """

    @Test("the settings reach the sender of each pool, with the pipeline's max_hold")
    func readAndApplied() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + Self.delivery,
                                               pipelines: ["main.yaml": ConfigurationFixture.validPipeline + "\nmax_hold: 2h\n"])
        let configuration = try fixture.load()
        let pipeline = try #require(configuration.pipelines.first)
        #expect(pipeline.maximumHold == .seconds(7_200))
        let pool = try #require(configuration.apns.pools.first)
        let sender = configuration.apns.senderConfiguration(for: pool, maximumHold: pipeline.maximumHold)
        #expect(sender.maximumAttempts == 7)
        #expect(sender.retryBackoffMilliseconds == 250)
        #expect(sender.maximumRetryBackoffMilliseconds == 20_000)
        #expect(sender.circuit.threshold == 8)
        #expect(sender.circuit.window == 12)
        #expect(sender.circuit.probeIntervalMilliseconds == 2_000)
        #expect(sender.circuit.maximumProbeIntervalMilliseconds == 60_000)
        #expect(sender.requestTimeoutMilliseconds == 5_000)
        #expect(sender.bulkStreamsWhileAboveBulkSends == 40)
        #expect(sender.aboveBulkQuietMilliseconds == 250)
        #expect(sender.maximumHoldMilliseconds == 7_200_000)
        #expect(sender.maximumConnections == pool.maximumConnections)
    }

    @Test("without the keys, the sender's defaults, bulk unbounded, and a max_hold of one hour")
    func defaults() throws {
        let configuration = try ConfigurationFixture().load()
        let pipeline = try #require(configuration.pipelines.first)
        #expect(pipeline.maximumHold == .seconds(3_600))
        let sender = configuration.apns.senderConfiguration(for: try #require(configuration.apns.pools.first), maximumHold: pipeline.maximumHold)
        let defaults = SenderConfiguration()
        #expect(sender.maximumAttempts == defaults.maximumAttempts)
        #expect(sender.circuit == defaults.circuit)
        #expect(sender.requestTimeoutMilliseconds == defaults.requestTimeoutMilliseconds)
        #expect(sender.bulkStreamsWhileAboveBulkSends == nil, "bulk is not bounded unless apns.bulk.streams says so")
        #expect(sender.aboveBulkQuietMilliseconds == defaults.aboveBulkQuietMilliseconds)
        #expect(sender.maximumHoldMilliseconds == defaults.maximumHoldMilliseconds)
    }

    @Test("variables override them")
    func environment() throws {
        let configuration = try ConfigurationFixture().load(environment: [
            "PUSHLINE_APNS_CIRCUIT_THRESHOLD": "3", "PUSHLINE_APNS_REQUEST_TIMEOUT": "30s",
            "PUSHLINE_APNS_RETRY_MAX_ATTEMPTS": "9", "PUSHLINE_PIPELINES_MAIN_MAX_HOLD": "10m",
            "PUSHLINE_APNS_BULK_STREAMS": "500",
        ])
        #expect(configuration.apns.delivery.bulkStreams == 500)
        #expect(configuration.apns.delivery.circuit.threshold == 3)
        #expect(configuration.apns.delivery.requestTimeout == .seconds(30))
        #expect(configuration.apns.delivery.maximumAttempts == 9)
        #expect(configuration.pipelines.first?.maximumHold == .seconds(600))
    }

    @Test("a threshold above the window is out of range, at its line and key")
    func thresholdAboveWindow() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\n  circuit:\n    threshold: 30\n    window: 20\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .outOfRange)
        #expect(error.key == "apns.circuit.threshold")
        #expect(error.line == 12)
    }

    @Test("a wrong duration and an unknown key are reported with file:line:key")
    func wrongValues() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\n  request_timeout: soon\n  retry:\n    jitter: false\n")
        let errors = fixture.errors()
        #expect(errors.map(\.key) == ["apns.request_timeout", "apns.retry.jitter"])
        #expect(errors.map(\.code) == [.wrongType, .unknownKey])
        #expect(errors.map(\.line) == [11, 13])
    }
}
