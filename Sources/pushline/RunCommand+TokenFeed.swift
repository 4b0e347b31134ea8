import Foundation
import PushlineConfiguration
import Worker

extension RunCommand {
    /// The token feed of `configuration`, started, when `tokens.enabled` is set; nil otherwise.
    static func startTokenFeed(_ configuration: PushlineConfiguration) -> TokenFeed? {
        guard configuration.tokens.enabled else { return nil }
        var feedConfiguration = TokenFeedConfiguration(consumer: configuration.kafka.consumerConfiguration(for: configuration.tokens),
                                                       producer: configuration.kafka.producerConfiguration, redis: configuration.redis)
        feedConfiguration.dlqTopic = configuration.tokens.dlq
        feedConfiguration.batchSize = configuration.tokens.batchSize
        let feed = TokenFeed(configuration: feedConfiguration) { event in
            switch event {
            case .redisUnreachable(let error): note("token feed: Redis cannot be reached (\(error)); its batch waits, retrying")
            case .redisRecovered(let attempts): note("token feed: Redis is back after \(attempts) failed attempt(s); the batch is applied")
            }
        }
        feed.start()
        note("token feed: \(configuration.tokens)")
        return feed
    }

    /// Stops the token feed, if one runs; 1 when it had stopped on an error (which is printed), else 0.
    static func stopTokenFeed(_ feed: TokenFeed?) -> Int32 {
        do {
            try feed?.stop()
            return 0
        } catch {
            note("the token feed stopped on an error: \(error)")
            return 1
        }
    }

    private static func note(_ message: String) {
        FileHandle.standardError.write(Data("pushline run: \(message)\n".utf8))
    }
}
