import APNsCore
import Foundation
import Pipeline
import PushlineTestKit
import Redis

/// The worker tests' view of a `LocalPipeline` (a worker on mock Kafka, a real redis-server and an
/// in-process APNs simulator), from async code, with intents made to measure.
final class WorkerFixture: Sendable {
    static let app = LocalPipeline.app

    let pipeline: LocalPipeline
    var harness: SimulatorHarness { pipeline.harness }
    var redis: RedisServer { pipeline.redis }

    /// - Parameter unregistered: tokens the simulator answers with 410 `Unregistered`, and when.
    init(unregistered: [(token: DeviceToken, at: Int64)] = []) async throws {
        pipeline = try await DedicatedThread.run { try LocalPipeline(unregistered: unregistered) }
    }

    /// Publishes intents to the single intents partition, in order, and waits until Kafka has them.
    func publish(_ intents: [[UInt8]]) async throws {
        let pipeline = pipeline
        try await DedicatedThread.run { try pipeline.publish(intents) }
    }

    /// Reads the worker's outputs until `topic` holds `count` records in all, and returns them all
    /// as JSON objects.
    func records(on topic: String, count: Int) async throws -> [[String: Any]] {
        let pipeline = pipeline
        let values = try await DedicatedThread.run { () throws -> [[UInt8]] in
            try pipeline.outputs(waitingFor: "\(count) records on \(topic)") { received in
                received.count { $0.topic == topic } >= count
            }.filter { $0.topic == topic }.map(\.value)
        }
        return values.map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
    }

    /// Stops the worker (draining) and everything else.
    func stop() async throws {
        let pipeline = pipeline
        try await DedicatedThread.run { try pipeline.stop() }
    }

    /// An intent with a raw payload for `tokens` (sandbox); `extra` adds top-level fields (`"k":v,…`).
    static func intent(id: String, tokens: [DeviceToken], extra: String = "") -> [UInt8] {
        intent(id: id, recipients: #""tokens":[\#(tokens.map { "\"\($0.hex)\"" }.joined(separator: ","))]"#, extra: extra)
    }

    /// An intent with a raw payload for a user of the token registry (sandbox).
    static func intent(id: String, user: String) -> [UInt8] {
        intent(id: id, recipients: #""user":"\#(user)""#)
    }

    private static func intent(id: String, recipients: String, extra: String = "") -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"\(id)","app":"\(app)","environment":"sandbox",\(recipients),\(extra)
             "payload":{"aps":{"alert":"hello"}}}
            """.utf8)
    }

    /// Registers `tokens` for `user` in the worker's token registry.
    func register(_ tokens: [DeviceToken], user: String) async throws {
        let port = redis.port
        try await DedicatedThread.run {
            let registry = TokenRegistry(connection: try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port))))
            for token in tokens {
                try registry.register(user: user, app: Self.app, environment: "sandbox", token: token, registeredAt: 1_700_000_000_000)
            }
        }
    }

    static func token(_ index: Int) throws -> DeviceToken {
        try DeviceToken(String(format: "%064x", index + 1))
    }
}
