import CLI

/// The `pushline-dev` command line: the demo, the local Kafka cluster and the benchmarks, which run
/// on local components (the simulator, redis-server, librdkafka's mock cluster) and read the
/// repository's files. Kept out of `pushline` so the production binary links none of them.
@main
enum PushlineDev {
    static let tool = CommandLineTool(
        name: "pushline-dev",
        summary: "Pushline's development tools: the demo, a local Kafka cluster and the benchmarks.",
        commands: [DemoCommand.self, DevKafkaCommand.self, BenchEnrichmentCommand.self, BenchDigestCommand.self, BenchSenderCommand.self, BenchKafkaCommand.self,
                   BenchRedisCommand.self, BenchDeferredStoreCommand.self, BenchE2ECommand.self, BenchFaultsCommand.self]
    )

    static func main() {
        tool.main()
    }
}
