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
        let feed = TokenFeed(configuration: feedConfiguration)
        feed.start()
        FileHandle.standardError.write(Data("pushline run: token feed: \(configuration.tokens)\n".utf8))
        return feed
    }

    /// Stops the token feed, if one runs; 1 when it had stopped on an error (which is printed), else 0.
    static func stopTokenFeed(_ feed: TokenFeed?) -> Int32 {
        do {
            try feed?.stop()
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushline run: the token feed stopped on an error: \(error)\n".utf8))
            return 1
        }
    }
}
