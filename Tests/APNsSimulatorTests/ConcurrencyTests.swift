import APNsSimulator
import Dispatch
import Foundation
import Testing

@Suite("Concurrent connections")
struct ConcurrencyTests {
    @Test("connections on several threads share one simulator without losing counts or notifications")
    func concurrentConnections() throws {
        let harness = try SimulatorHarness { $0.inboxCapacity = 10_000 }
        let headers = try harness.pushHeaders()
        let simulator = harness.simulator
        let threads = 4
        let perThread = 250
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let connection = simulator.makeConnection(port: .device, clientCertificateTopics: nil)
            for index in 0..<perThread {
                let token = String(format: "%064x", thread * 100_000 + index)
                let request = SimulatorRequest(method: "POST", path: "/3/device/\(token)", headers: headers, body: Fixture.payload)
                _ = simulator.handle(request, on: connection)
            }
        }
        let stats = harness.simulator.stats()
        #expect(stats.requests == threads * perThread)
        #expect(stats.responsesByStatus == [200: threads * perThread])
        #expect(harness.simulator.inbox().count == threads * perThread)
        #expect(Set(harness.simulator.inbox().map(\.apnsID)).count == threads * perThread)
    }
}
