import CLI
import Foundation
import LocalStack

/// `pushline-dev bench faults`: the fault matrix of issue 14 — each row a fault injected into real local
/// components while intents flow, and what it cost (docs/RELIABILITY.md).
enum BenchFaultsCommand: Command {
    static let name = "bench faults"
    static let summary = "the fault matrix: SIGKILL, APNs brownouts and GOAWAYs, Redis and Kafka outages, poison, SIGTERM"
    static let help = """
        Usage: pushline-dev bench faults [--rows ROW,ROW…] [--intents N] [--short] [--json]
                                     [--kafka-property KEY=VALUE]…

        Runs each row of the fault matrix on a fresh local stack, every component a process of its
        own: `pushline-dev dev-kafka` (3 brokers; pushline.intents with 4 partitions), a redis-server,
        the apns-sim built beside this executable (admin API for the faults, an inbox file for what
        devices received) and `pushline run` (pipeline `notifications`, shutdown.deadline 10 s),
        under a supervisor that starts it again, up to 5 times, when it exits by itself. Each
        intent is a raw alert to a device token of its own. The row publishes intents, injects its
        fault, waits until every intent has an outcome or none arrived for 75 s (longer than
        dedupe.pending_ttl, after which a killed worker's claims are taken over; 8 s with --short),
        and prints:

          intents    intents Kafka acknowledged (poison included)
          outcomes   outcome events on pushline.outcomes, duplicates included
          no outc.   intents without any outcome (matched by source partition and offset)
          twice      devices that received their notification more than once (apns-sim's inbox)
          DLQ        records on pushline.dlq
          failed     outcomes with status `failed`
          exits      times the worker exited by itself
          recovery   from the fault's end to the first `accepted` outcome after it (the worst
                     restart for the SIGKILL rows); the details then say when the backlog was
                     done: the last intent's first outcome

        and whether the row met its goals: 0 without outcome, the worker never exits, recovery
        ≤ 5 s; apns-503: 0 failed; sigkill-skip: 0 devices twice; sigkill-resend: notifications
        beyond the first ≤ the claims pending in Redis at the kills (in flight at APNs); sigterm:
        exit 0 within shutdown.deadline.

        Rows (default: all, in this order):
        \(BenchFaultsRow.allCases.map { "  \($0.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

        Options:
          --rows ROW,ROW…         the rows to run
          --intents N             intents of the SIGKILL rows (default 100000); the other rows
                                  produce N / 5 at a steady rate over warm-up (5 s), fault and tail (10 s)
          --short                 the small version: 5000 intents, faults of 3 s (the brownout 4 s)
          --json                  also print each row as one JSON line, prefixed "faults-row "
          --kafka-property K=V    a librdkafka property for the worker (kafka.properties); repeatable.
                                  Default: fetch.wait.max.ms=2, as for `pushline-dev bench e2e`, and
                                  session.timeout.ms=4000: the mock cluster's coordinator holds every
                                  rejoin for the session timeout less 1 s, where a real broker lets a
                                  group that is empty again start after group.initial.rebalance.delay.ms
                                  (3 s), and it cannot show static membership (docs/RELIABILITY.md);
                                  heartbeat.interval.ms=1000, a third of it
          -h, --help              show this help

        Progress goes to standard error. Exit 0 when every row ran (met or not); 1 when a
        component could not start or a row could not finish.
        """
    static let arguments = ArgumentSpec(valueOptions: ["--rows", "--intents"], flagOptions: ["--short", "--json"],
                                        repeatableOptions: ["--kafka-property"])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let kafkaProperties = try arguments.keyValues("--kafka-property",
                                                      over: ["fetch.wait.max.ms": "2", "session.timeout.ms": "4000", "heartbeat.interval.ms": "1000"])
        var settings = arguments.flags.contains("--short") ? BenchFaultsRow.Settings.short(kafkaProperties: kafkaProperties)
            : BenchFaultsRow.Settings(kafkaProperties: kafkaProperties)
        settings.intents = try arguments.positiveInteger("--intents", default: settings.intents)
        let rows = try arguments.optional("--rows").map { list in
            try list.split(separator: ",").map { name in
                guard let row = BenchFaultsRow(rawValue: String(name)) else {
                    throw UsageError(message: "unknown row \"\(name)\"; rows: \(BenchFaultsRow.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return row
            }
        } ?? BenchFaultsRow.allCases

        var results: [BenchFaultsResult] = []
        do {
            for row in rows {
                progress("\(row.rawValue): starting (\(row.summary))")
                let result = try row.run(settings, progress: progress)
                progress(result.tableLine)
                if arguments.flags.contains("--json") { print("faults-row " + String(decoding: result.json, as: UTF8.self)) }
                results.append(result)
            }
        } catch {
            progress("\(error)")
            return 1
        }
        print("pushline-dev bench faults: \(settings.intents) intents for the SIGKILL rows, \(settings.steadyIntents) for the others; "
            + "worker kafka.properties \(kafkaProperties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
        print(BenchFaultsResult.tableHeader)
        for result in results { print(result.tableLine) }
        for result in results {
            for detail in result.details { print("  \(result.row): \(detail)") }
            print("  \(result.row): outcomes by status \(result.byStatus.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        }
        return 0
    }

    private static func progress(_ message: String) {
        FileHandle.standardError.write(Data("bench faults: \(message)\n".utf8))
    }
}
