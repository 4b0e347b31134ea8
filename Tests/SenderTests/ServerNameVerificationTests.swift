import APNsClient
import APNsSimulator
import APNsSimulatorServer
import Foundation
import PushlineTestKit
import TLS
import Testing

/// The sender checks that the server's certificate names the host it dialled (`SSL_set1_host`),
/// not only that a trusted CA signed it: a certificate for another name, from the very CA the pool
/// trusts, gets no request.
@Suite("Sender: the server's certificate must name the host", .serialized)
struct ServerNameVerificationTests {
    /// A simulator on 127.0.0.1 presenting a self-signed certificate with `names`, and a sender
    /// that trusts exactly that certificate and dials `localhost`; the result of one notification.
    private func sendThroughServer(certifiedFor names: [String]) async throws -> (result: DeliveryResult, requestsSeen: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-names-\(UUID().uuidString)")
        let (certificateFile, privateKeyFile) = try SelfSignedCertificate(commonName: names[0], alternativeNames: names.map { "DNS:" + $0 })
            .write(to: directory)
        let tls = try TLSContext.server(certificateFile: certificateFile, privateKeyFile: privateKeyFile, alpn: ["h2"])
        let server = try SimulatorServer(simulator: APNsSimulator(configuration: SimulatorConfiguration()), tls: tls, eventLoops: 1)
        defer { server.shutdown(drainMilliseconds: 0) }
        var configuration = SenderConfiguration()
        configuration.caFile = certificateFile
        configuration.maximumHoldMilliseconds = 1500
        configuration.reconnectBackoffMilliseconds = 50
        let sender = try APNsSender(configuration: configuration)
        defer { sender.shutdown() }
        try sender.addPool(named: "dev", credentials: .token(ProviderTokenSource(credentials: SenderFixture.devCredentials())),
                           environment: APNsEnvironment(host: "localhost", port: server.devicePort))
        let result = try #require(try await sender.send(SenderFixture.notifications(1), pool: "dev").first)
        return (result, server.simulator.stats().requests)
    }

    @Test("a certificate from the trusted CA for another host name is refused: no request reaches the server")
    func otherHostNameIsRefused() async throws {
        let (result, requestsSeen) = try await sendThroughServer(certifiedFor: ["apns.other-host.invalid"])
        #expect(result.outcome != .accepted)
        #expect(result.status == nil, "APNs never answered")
        #expect(result.failureDetail?.contains("hostname mismatch") == true, "\(result.failureDetail ?? "no detail")")
        #expect(requestsSeen == 0)
    }

    @Test("control: the same set-up with a certificate naming localhost is accepted")
    func matchingHostNameIsAccepted() async throws {
        let (result, requestsSeen) = try await sendThroughServer(certifiedFor: ["localhost"])
        #expect(result.outcome == .accepted)
        #expect(requestsSeen == 1)
    }
}
