import Foundation
import LocalStack
import Runtime

/// One row of the fault matrix (issue 14, docs/RELIABILITY.md): a fault, injected into a fresh local
/// stack while intents flow, and the goals its figures must meet.
enum BenchFaultsRow: String, CaseIterable {
    case sigkillResend = "sigkill-resend"
    case sigkillSkip = "sigkill-skip"
    case apns503 = "apns-503"
    case goAway = "goaway"
    case streamCollapse = "stream-collapse"
    case neverRespond = "never-respond"
    case redisRestart = "redis-restart"
    case kafkaBrokerDown = "kafka-broker-down"
    case poison
    case sigterm

    /// How large and how long the rows are.
    struct Settings {
        /// Intents of the SIGKILL rows, pre-loaded.
        var intents = 100_000
        /// Intents of the other rows, produced at a steady rate over warm-up, fault and tail.
        var steadyIntents: Int { max(100, intents / 5) }
        var warmUp = Duration.seconds(5)
        var tail = Duration.seconds(10)
        /// How long the APNs 503 brownout lasts.
        var brownout = Duration.seconds(60)
        /// How long the other lasting faults last (GOAWAY, stream collapse, stuck streams, broker down).
        var faultLength = Duration.seconds(30)
        /// Outputs are quiet after this long without an outcome: longer than `dedupe.pending_ttl`
        /// (60 s), after which a crashed worker's claims are taken over.
        var quiet = Duration.seconds(75)
        /// librdkafka properties of the worker.
        var kafkaProperties: [String: String] = [:]

        /// The small version (`--short`, and the test in `make test`).
        static func short(kafkaProperties: [String: String]) -> Settings {
            Settings(intents: 5_000, warmUp: .seconds(2), tail: .seconds(2), brownout: .seconds(4), faultLength: .seconds(3),
                     quiet: .seconds(8), kafkaProperties: kafkaProperties)
        }
    }

    var summary: String {
        switch self {
        case .sigkillResend: "SIGKILL ×3 under pre-loaded intents, restart after each; dedupe.on_uncertain: resend"
        case .sigkillSkip: "SIGKILL ×3 under pre-loaded intents, restart after each; dedupe.on_uncertain: skip"
        case .apns503: "APNs answers 503 ServiceUnavailable to everything for the brownout, then recovers"
        case .goAway: "APNs sends GOAWAY after every 1,000 streams of a connection"
        case .streamCollapse: "APNs lowers SETTINGS_MAX_CONCURRENT_STREAMS to 1 on every connection"
        case .neverRespond: "APNs never answers 1 % of requests"
        case .redisRestart: "redis-server killed with SIGKILL and restarted empty on the same port"
        case .kafkaBrokerDown: "one Kafka broker down, then up"
        case .poison: "1 % poison intents up to 2 MB: random bytes, malformed JSON, oversized intents"
        case .sigterm: "SIGTERM to the worker under load, then a restart"
        }
    }

    /// Runs the row on a fresh stack and returns its figures.
    func run(_ settings: Settings, progress: (String) -> Void) throws -> BenchFaultsResult {
        var result = BenchFaultsResult(row: rawValue)
        let environment: [String: String] = switch self {
        case .sigkillResend: ["PUSHLINE_PIPELINES_NOTIFICATIONS_DEDUPE_ON_UNCERTAIN": "resend"]
        case .sigkillSkip: ["PUSHLINE_PIPELINES_NOTIFICATIONS_DEDUPE_ON_UNCERTAIN": "skip"]
        default: [:]
        }
        let stack = try BenchFaultsStack(kafkaProperties: settings.kafkaProperties, environment: environment)
        defer { stack.stop() }
        try stack.waitUntilReady()
        switch self {
        case .sigkillResend, .sigkillSkip:
            try killThrice(stack, settings, &result, progress: progress)
        case .kafkaBrokerDown:
            let control = stack.brokerControl
            try steady(stack, settings, &result, length: settings.faultLength, progress: progress,
                       begin: { try control.setBroker(1, up: false) }, end: { try control.setBroker(1, up: true) })
        case .apns503:
            try steady(stack, settings, &result, length: settings.brownout, progress: progress,
                       begin: { try stack.simulator.setFaults(#"{"service_unavailable_rate":1}"#) },
                       end: { try stack.simulator.setFaults(#"{"service_unavailable_rate":0}"#) })
            result.goals.append(("0 failed", result.failed == 0))
        case .goAway:
            try steady(stack, settings, &result, length: settings.faultLength, progress: progress,
                       begin: { try stack.simulator.setFaults(#"{"goaway_every_streams":1000}"#) },
                       end: { try stack.simulator.setFaults(#"{"goaway_every_streams":0}"#) })
        case .streamCollapse:
            try steady(stack, settings, &result, length: settings.faultLength, progress: progress,
                       begin: { try stack.simulator.setFaults(#"{"max_concurrent_streams":1}"#) },
                       end: { try stack.simulator.setFaults(#"{"max_concurrent_streams":0}"#) })
        case .neverRespond:
            try steady(stack, settings, &result, length: settings.faultLength, progress: progress,
                       begin: { try stack.simulator.setFaults(#"{"never_respond_rate":0.01}"#) },
                       end: { try stack.simulator.setFaults(#"{"never_respond_rate":0}"#) })
        case .redisRestart:
            try steady(stack, settings, &result, length: .zero, progress: progress, begin: { try stack.redis.crashAndRestart() }, end: {})
        case .poison:
            try steady(stack, settings, &result, length: nil, progress: progress, isPoison: { $0 % 100 == 99 }, begin: {}, end: {})
        case .sigterm:
            var exit: (status: Int32, took: Duration)?
            try steady(stack, settings, &result, length: .zero, progress: progress,
                       begin: { exit = stack.worker.signal(SIGTERM) }, end: { try stack.worker.start() })
            if let exit {
                let deadline = Duration.seconds(BenchFaultsStack.shutdownDeadlineSeconds)
                result.details.append("SIGTERM: exit status \(exit.status) after \(BenchFaultsResult.seconds(exit.took)) "
                    + "(shutdown.deadline \(BenchFaultsResult.seconds(deadline)))")
                result.goals.append(("exit 0", exit.status == 0))
                result.goals.append(("exit within shutdown.deadline", exit.took <= deadline))
            }
        }
        return result
    }

    /// Produces the row's intents at a steady rate; after the warm-up runs `begin`, after `length`
    /// runs `end` (no fault window when `length` is nil); waits for the tail, then until the outputs
    /// are quiet; counts.
    private func steady(_ stack: BenchFaultsStack, _ settings: Settings, _ result: inout BenchFaultsResult, length: Duration?,
                        progress: (String) -> Void, isPoison: @escaping @Sendable (Int) -> Bool = { _ in false },
                        begin: () throws -> Void, end: () throws -> Void) throws {
        let total = settings.steadyIntents
        let window = settings.warmUp + (length ?? .zero) + settings.tail
        let rate = Double(total) / (window / .seconds(1))
        let traffic = stack.traffic
        progress("\(rawValue): \(total) intents at \(Int(rate))/s over \(BenchFaultsResult.seconds(window))")
        let production = BackgroundWork { try traffic.produceSteadily(0..<total, perSecond: rate, isPoison: isPoison) }
        var faultEnd: MonotonicClock.Instant?
        if let length {
            try stack.hold(settings.warmUp)
            progress("\(rawValue): fault on (\(summary))")
            try begin()
            try stack.hold(length)
            try end()
            faultEnd = .now
            progress("\(rawValue): fault off")
        }
        try production.wait()
        progress("\(rawValue): all intents produced; waiting until the outputs are quiet")
        try stack.waitUntilQuiet(settings.quiet)
        try stack.finish(&result, faultEnd: faultEnd)
        result.addCommonGoals()
    }

    /// Pre-loads the intents, starts the worker, kills it with SIGKILL when a quarter, half and
    /// three quarters of them have outcomes, restarting it at once each time; reads the claims still
    /// `pending` in Redis at each kill: the deliveries in flight at APNs, which a restart may send again.
    private func killThrice(_ stack: BenchFaultsStack, _ settings: Settings, _ result: inout BenchFaultsResult,
                            progress: (String) -> Void) throws {
        let total = settings.intents
        progress("\(rawValue): pre-loading \(total) intents")
        try stack.traffic.preload(0..<total)
        // Claims a killed worker left pending stay so until their TTL: each kill's own are the new ones.
        var pending: Set<String> = []
        var inFlight: [Int] = []
        var restarts: [MonotonicClock.Instant] = []
        for quarter in 1...3 {
            let threshold = total * quarter / 4
            let deadline = MonotonicClock.now + .seconds(600)
            while stack.ledger.counts.outcomes < threshold {
                guard MonotonicClock.now < deadline else { throw LocalStackError("fewer than \(threshold) outcomes after 10 minutes") }
                try stack.hold(.milliseconds(20))
            }
            let killed = stack.worker.signal(SIGKILL)
            let pendingNow = try stack.redis.pendingClaimKeys()
            inFlight.append(pendingNow.subtracting(pending).count)
            pending.formUnion(pendingNow)
            progress("\(rawValue): SIGKILL at \(stack.ledger.counts.outcomes) outcomes (status \(killed.status)); "
                + "\(inFlight.last ?? 0) claims newly pending; restarting")
            try stack.worker.start()
            restarts.append(.now)
        }
        try stack.waitUntilQuiet(settings.quiet)
        try stack.finish(&result, faultEnd: restarts.last)
        let recoveries = restarts.map { restart in stack.ledger.firstAccepted(after: restart).map { restart.duration(to: $0) } }
        result.recovery = recoveries.contains { $0 == nil } ? nil : recoveries.compactMap { $0 }.max()
        result.details.append("in flight at APNs at each kill (claims newly pending in Redis): \(inFlight), total \(pending.count); "
            + "devices notified twice \(result.devicesTwice) (\(result.extraNotifications) extra notifications); "
            + "recovery after each restart: \(recoveries.map { BenchFaultsResult.seconds($0, missing: "never") })")
        result.addCommonGoals()
        if self == .sigkillSkip {
            result.goals.append(("0 devices twice", result.devicesTwice == 0))
        } else {
            result.goals.append(("twice ≤ in flight at kills", result.extraNotifications <= pending.count))
        }
    }
}
