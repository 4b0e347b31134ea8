import Pipeline
import PushlineConfiguration
import Telemetry
import Worker

extension RunCommand {
    /// The token feed of `configuration`, started, when `tokens.enabled` is set; nil otherwise. Its
    /// start, each Redis outage it waits out, and its failure are logged; `whenFailed` is called
    /// when it stops on an error of its own.
    /// Its metrics go to `registry`; `keyEncryptionKey` seals the keys of the feed's key records.
    static func startTokenFeed(_ configuration: PushlineConfiguration, keyEncryptionKey: KeyEncryptionKey?, logger: Logger,
                               registry: MetricsRegistry, whenFailed: @escaping @Sendable (any Error) -> Void) throws -> TokenFeed? {
        let tokens = configuration.tokens
        guard tokens.enabled else { return nil }
        var feedConfiguration = TokenFeedConfiguration(consumer: configuration.kafka.consumerConfiguration(for: tokens),
                                                       producer: configuration.kafka.producerConfiguration, redis: configuration.redis)
        feedConfiguration.dlqTopic = tokens.dlq
        feedConfiguration.batchSize = tokens.batchSize
        feedConfiguration.keyEncryptionKey = keyEncryptionKey
        let feed = try TokenFeed(configuration: feedConfiguration, registry: registry) { event in
            switch event {
            case .redisUnreachable(let error):
                logger.warning("token feed: Redis cannot be reached; its batch waits", metadata: ["error": .string("\(error)")])
            case .redisRecovered(let attempts):
                logger.notice("token feed: Redis is back; the batch is applied", metadata: ["failed_attempts": .string("\(attempts)")])
            }
        }
        feed.start { error in
            logger.error("token feed failed", metadata: ["error": .string("\(error)")])
            whenFailed(error)
        }
        logger.info("token feed started", metadata: ["topic": .string(tokens.topic), "group": .string(tokens.group),
                                                     "dlq": .string(tokens.dlq), "batch_size": .string("\(tokens.batchSize)"),
                                                     "key_records": .string(keyEncryptionKey == nil ? "dead-lettered (no key-encryption key)" : "registered")])
        return feed
    }

    /// Stops the token feed, if one runs; 1 when it had stopped on an error (logged when it did), else 0.
    static func stopTokenFeed(_ feed: TokenFeed?) -> Int32 {
        do {
            try feed?.stop()
            return 0
        } catch {
            return 1
        }
    }
}
