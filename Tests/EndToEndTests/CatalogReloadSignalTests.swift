import Foundation
import PushlineTestKit
import Testing

/// SIGHUP on `pushline run` (issue 18 item 6): its signal watcher takes the signal, each pipeline's
/// templates and strings are read again, and the worker keeps running and delivering. What a reload
/// does to deliveries, and a rejected one, are tested on a running worker in WorkerTests
/// (`CatalogHotReloadTests`).
@Suite("pushline run: SIGHUP reloads templates and strings", .timeLimit(.minutes(3)))
struct CatalogReloadSignalTests {
    @Test("SIGHUP reloads each pipeline's catalog without stopping the worker; the log line and pushline_catalog_reloads_total say so")
    func hangUpReloads() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack(partitions: 1)
            defer { stack.stop() }
            let (worker, endpoint) = try stack.startReadyWorker()
            defer { worker.stop() }
            #expect(try endpoint.sum(of: "pushline_catalog_reloads_total") == 0)
            #expect(try endpoint.sum(of: "pushline_catalog_loaded_timestamp_seconds") > 1_700_000_000)

            worker.send(signal: SIGHUP)
            try Deadline.wait(.seconds(20), for: "a reload applied") {
                try endpoint.sum(of: "pushline_catalog_reloads_total", labelled: #"result="applied""#) == 1
            }
            worker.send(signal: SIGHUP)
            try Deadline.wait(.seconds(20), for: "a second reload applied") {
                try endpoint.sum(of: "pushline_catalog_reloads_total", labelled: #"result="applied""#) == 2
            }
            // Quiet for five settle delays before counting: a reload must not start another.
            Thread.sleep(forTimeInterval: 1)
            #expect(try endpoint.sum(of: "pushline_catalog_reloads_total", labelled: #"result="applied""#) == 2)
            #expect(worker.isRunning)
            #expect(try endpoint.sum(of: "pushline_catalog_reloads_total", labelled: #"result="rejected""#) == 0)
            let reloaded = worker.log.split(separator: "\n").filter { $0.contains(#""message":"catalog reloaded""#) }
            #expect(reloaded.count == 2 && reloaded.allSatisfy { $0.contains(#""trigger":"signal""#) && $0.contains(#""pipeline":"local""#) },
                    "\(reloaded)")

            try stack.publish(0..<3)
            let log = try OutcomeLog(stack)
            try log.readAll(0..<3)
            let outcomes = try log.readUntilQuiet()
            #expect(outcomes.count == 3 && outcomes.allSatisfy { $0.status == "accepted" }, "\(outcomes.map(\.raw))")
            #expect(worker.isRunning)
        }
    }
}
