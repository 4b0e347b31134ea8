import Kafka
import LocalStack

/// What one measurement of `pushline-dev bench e2e` runs on, fresh for each workload: a mock Kafka
/// cluster (one broker, the intents topic on `partitions` partitions, the output topics) and a
/// Redis (one redis-server, or a cluster: ``BenchRedisTarget``); and the worker's configuration over them and the bench's APNs server.
struct BenchE2EStack {
    let cluster: KafkaMockCluster
    let redis: BenchRedisTarget

    init(partitions: Int, redis kind: BenchRedisTarget.Kind = .single) throws {
        cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic(LocalPipeline.intentsTopic, partitions: partitions)
        for topic in LocalPipeline.outputTopics { try cluster.createTopic(topic, partitions: 1) }
        redis = try BenchRedisTarget(kind)
    }

    /// `pushline run`'s configuration: group `bench-e2e`, the settings' batch size and librdkafka
    /// properties, logging at `notice` (`info` when the workers start first: the group's assignments are
    /// read from their logs), metrics on a free port, the Redis deployment's `redis` section.
    func workerConfiguration(_ settings: BenchE2ECommand.Settings, server: BenchServer) throws -> LocalRunConfiguration {
        var configuration = LocalRunConfiguration(bootstrapServers: cluster.bootstrapServers, redisPort: redis.port,
                                                  simulatorPort: server.process.devicePort, caFile: server.process.certificateFile)
        configuration.group = "bench-e2e"
        configuration.batchSize = settings.batchSize
        configuration.kafkaProperties = settings.kafkaProperties
        configuration.logLevel = settings.workersFirst ? "info" : "notice"
        configuration.metricsPort = try FreePort.next()
        configuration.redisSettings = redis.runSettings
        return configuration
    }
}
