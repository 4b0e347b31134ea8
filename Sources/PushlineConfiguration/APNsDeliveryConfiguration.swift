import APNsClient
import Runtime

/// How every pool retries, when its circuit opens and how it probes, how long a request may go
/// unanswered, and how much of it bulk may take while the lanes above send: `apns.retry`,
/// `apns.circuit`, `apns.request_timeout` and `apns.bulk`. The defaults are the sender's own
/// (``SenderConfiguration``).
public struct APNsDeliveryConfiguration: Sendable, CustomStringConvertible {
    /// Attempts for retries about the request itself (429 `TooManyRequests`, provider tokens);
    /// outages are retried until the delivery's deadline instead.
    public var maximumAttempts = SenderConfiguration().maximumAttempts
    /// The first retry's back-off, doubled per retry up to `maximumRetryBackoff`; always jittered.
    public var retryBackoff = Duration.milliseconds(SenderConfiguration().retryBackoffMilliseconds)
    public var maximumRetryBackoff = Duration.milliseconds(SenderConfiguration().maximumRetryBackoffMilliseconds)
    public var circuit = SenderConfiguration().circuit
    public var requestTimeout = Duration.milliseconds(SenderConfiguration().requestTimeoutMilliseconds)
    /// Bulk requests a pool keeps in flight while a lane above bulk sends (`apns.bulk.streams`; not
    /// set: no bound), and how long after its last request a lane above still counts as sending
    /// (`apns.bulk.quiet`).
    public var bulkStreams = SenderConfiguration().bulkStreamsWhileAboveBulkSends
    public var aboveBulkQuiet = Duration.milliseconds(SenderConfiguration().aboveBulkQuietMilliseconds)

    public init() {}

    public var description: String {
        "\(maximumAttempts) attempts, back-off \(DurationText.format(retryBackoff))–\(DurationText.format(maximumRetryBackoff)), "
            + "circuit opens at \(circuit.threshold) of \(circuit.window) answers, probes "
            + "\(DurationText.format(.milliseconds(circuit.probeIntervalMilliseconds)))–"
            + "\(DurationText.format(.milliseconds(circuit.maximumProbeIntervalMilliseconds))), "
            + "request timeout \(DurationText.format(requestTimeout)), "
            + (bulkStreams.map { "bulk \($0) streams within \(DurationText.format(aboveBulkQuiet)) of a lane above" } ?? "bulk unbounded")
    }

    /// These settings over `configuration`, with `maximumHold` as its hold limit.
    public func apply(to configuration: inout SenderConfiguration, maximumHold: Duration) {
        configuration.maximumAttempts = maximumAttempts
        configuration.retryBackoffMilliseconds = retryBackoff.wholeMilliseconds
        configuration.maximumRetryBackoffMilliseconds = maximumRetryBackoff.wholeMilliseconds
        configuration.circuit = circuit
        configuration.requestTimeoutMilliseconds = requestTimeout.wholeMilliseconds
        configuration.bulkStreamsWhileAboveBulkSends = bulkStreams
        configuration.aboveBulkQuietMilliseconds = aboveBulkQuiet.wholeMilliseconds
        configuration.maximumHoldMilliseconds = maximumHold.wholeMilliseconds
    }

    /// Reads `retry`, `circuit`, `request_timeout` and `bulk` of the `apns` section over the defaults.
    mutating func read(_ apns: inout ConfigurationSection) {
        var retry = apns.section("retry")
        if let attempts = retry.value("max_attempts", .integer(1...100)) { maximumAttempts = attempts }
        let backoffs = Duration.milliseconds(1)...Duration.seconds(600)
        if let backoff = retry.value("backoff", .duration(backoffs)) { retryBackoff = backoff }
        if let backoff = retry.value("max_backoff", .duration(backoffs)) { maximumRetryBackoff = backoff }
        if retryBackoff > maximumRetryBackoff {
            retry.report(.outOfRange, "backoff", at: retry.origin("backoff"),
                         "\(DurationText.format(retryBackoff)) is more than max_backoff (\(DurationText.format(maximumRetryBackoff)))")
        }
        retry.finish()

        var circuitSection = apns.section("circuit")
        if let threshold = circuitSection.value("threshold", .integer(1...10_000)) { circuit.threshold = threshold }
        if let window = circuitSection.value("window", .integer(1...10_000)) { circuit.window = window }
        if circuit.threshold > circuit.window {
            circuitSection.report(.outOfRange, "threshold", at: circuitSection.origin("threshold"),
                                  "\(circuit.threshold) is more than window (\(circuit.window))")
        }
        let probes = Duration.milliseconds(10)...Duration.seconds(3_600)
        if let interval = circuitSection.value("probe_interval", .duration(probes)) {
            circuit.probeIntervalMilliseconds = interval.wholeMilliseconds
        }
        if let interval = circuitSection.value("max_probe_interval", .duration(probes)) {
            circuit.maximumProbeIntervalMilliseconds = interval.wholeMilliseconds
        }
        if circuit.probeIntervalMilliseconds > circuit.maximumProbeIntervalMilliseconds {
            circuitSection.report(.outOfRange, "probe_interval", at: circuitSection.origin("probe_interval"),
                                  "it is more than max_probe_interval")
        }
        circuitSection.finish()

        if let timeout = apns.value("request_timeout", .duration(.milliseconds(100)...Duration.seconds(600))) { requestTimeout = timeout }

        var bulk = apns.section("bulk")
        if let streams = bulk.value("streams", .integer(1...1_000_000)) { bulkStreams = streams }
        if let quiet = bulk.value("quiet", .duration(.milliseconds(1)...Duration.seconds(3_600))) { aboveBulkQuiet = quiet }
        bulk.finish()
    }
}
