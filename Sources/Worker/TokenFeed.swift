import Foundation
import Kafka
import Pipeline
import Redis
import Runtime
import Synchronization
import Telemetry

/// Keeps the token registry in step with the `pushline.tokens` topic, on a thread of its own: poll a
/// batch of records, decode them (a bad one becomes a dead letter with its reason, and the records
/// after it go on), apply the rest to the registry in one Redis round trip, wait until Kafka has the
/// dead letters, and only then mark the batch's messages complete, so offsets advance at the
/// watermark only over records that are in the registry or the DLQ.
///
/// Key records (``EncryptionKeyRecord``) go to the ``EncryptionKeyRegistry``, sealed under the
/// configuration's key-encryption key, in a second round trip of the same attempt. No key reaches a
/// log, a metric or a dead letter: a record that cannot be decoded is dead-lettered
/// ``EncryptionKeyRecord/redacted(_:)``.
///
/// While Redis cannot be reached, the batch in hand is tried again with the worker's backoff
/// (``RedisOutage``: 100 ms doubling to 5 s, with jitter): no record is
/// skipped, and applying records again is harmless (``TokenRegistry/apply(_:)``). ``stop()`` ends
/// the wait, leaving that batch to be read again after a restart, then flushes, commits and closes.
/// An error the feed cannot wait out (Kafka failing, Redis refusing a command for good) stops it
/// without completing the batch in hand; ``stop()`` throws it.
public final class TokenFeed: Sendable {
    /// Counts since the feed started.
    public struct Statistics: Sendable, Equatable {
        /// Records applied to the registry (whatever their effect), key records included.
        public var recordsApplied = 0
        /// Of those, key records.
        public var keysApplied = 0
        /// Records sent to the DLQ because they could not be decoded.
        public var deadLetters = 0
        /// Attempts to apply a batch that failed because Redis could not be reached (each was tried again).
        public var redisRetries = 0
    }

    /// What the feed reports as it happens, for logs.
    public enum Event: Sendable {
        /// Redis could not be reached: the batch in hand waits for it (reported once per outage).
        case redisUnreachable(RedisError)
        /// Redis answered again and the waiting batch was applied, after this many failed attempts.
        case redisRecovered(failedAttempts: Int)
    }

    private let configuration: TokenFeedConfiguration
    private let eventHandler: @Sendable (Event) -> Void
    private let metrics: TokenFeedMetrics?
    private let stopping = Atomic<Bool>(false)
    /// Signalled by ``stop()``, to cut a wait for Redis short.
    private let wake = Semaphore()
    private let thread = ServiceThread()
    private let counts = Mutex(Statistics())
    /// Whether the consumer has been given its partitions (joined its group).
    private let joined = Atomic<Bool>(false)
    /// Whether Redis answered the feed the last time it asked (a batch applied, or a `PING` while idle).
    private let redisAnswers = Atomic<Bool>(false)
    /// How long an idle feed goes without asking Redis before it `PING`s it, so ``isReady`` follows
    /// an outage that no batch meets.
    static let idleRedisCheck = Duration.seconds(1)

    /// - Parameters:
    ///   - registry: where the feed records its metrics (`pushline_token_records_total`,
    ///     `pushline_token_feed_redis_available`); none when nil.
    ///   - eventHandler: called on the feed's thread; it must not block for long.
    /// - Throws: ``MetricsRegistryError`` when `registry` already holds the feed's metrics.
    public init(configuration: TokenFeedConfiguration, registry: MetricsRegistry? = nil,
                eventHandler: @escaping @Sendable (Event) -> Void = { _ in }) throws(MetricsRegistryError) {
        self.configuration = configuration
        self.eventHandler = eventHandler
        metrics = try registry.map { (registry) throws(MetricsRegistryError) in try TokenFeedMetrics(registry: registry) }
    }

    /// Starts the feed's thread; call once. `whenFailed` is called on that thread if the feed stops
    /// on an error of its own (before ``stop()`` is asked for or while it drains).
    public func start(whenFailed: @escaping @Sendable (any Error) -> Void = { _ in }) {
        thread.start(name: "pushline-token-feed", { [self] in try run() }, whenFailed: whenFailed)
    }

    /// Asks the feed to stop after the batch in hand and waits until it has drained and closed.
    /// Blocking: call it from a thread of its own, never from Swift's cooperative pool.
    public func stop() throws {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        try thread.join()
    }

    public var statistics: Statistics { counts.withLock { $0 } }

    /// Whether the feed can do its work (`/readyz`): it has joined its consumer group, and Redis
    /// answered it the last time it asked — a batch applied, or a `PING` after a second idle.
    public var isReady: Bool {
        joined.load(ordering: .acquiring) && redisAnswers.load(ordering: .acquiring)
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func run() throws {
        let acknowledgements = OutputAcknowledgements()
        let producer = try KafkaProducer(configuration: configuration.producer, eventHandler: acknowledgements.record)
        let consumer = try KafkaConsumer(configuration: configuration.consumer) { [self] event in
            if case .assigned = event { joined.store(true, ordering: .releasing) }
        }
        // Connected at the first batch or check, so a feed started while Redis is down waits for it there.
        var connection: RedisConnection?
        let clock = configuration.clock
        var lastAsked = clock.now - Self.idleRedisCheck
        while !isStopping {
            let batch = consumer.poll(maxMessages: configuration.batchSize, timeout: configuration.pollTimeout)
            guard !batch.isEmpty else {
                if clock.now >= lastAsked + Self.idleRedisCheck {
                    lastAsked = clock.now
                    try checkRedis(connection: &connection)
                }
                continue
            }
            lastAsked = clock.now
            var registrations: [TokenRegistration] = []
            var keys: [EncryptionKeyRecord] = []
            var deadLetters: [KafkaProducerMessage] = []
            for message in batch {
                do {
                    switch try TokenRegistrationDecoder.decodeRecord(message.value ?? []) {
                    case .registration(let registration):
                        registrations.append(registration)
                    case .key where configuration.keyEncryptionKey == nil:
                        deadLetters.append(deadLetter(for: message, reason: Self.missingKeyEncryptionKey,
                                                      detail: "\(Self.missingKeyEncryptionKey): this process has no key-encryption key "
                                                          + "(encryption.kek_file or PUSHLINE_ENCRYPTION_KEK) to store the key with"))
                    case .key(let key):
                        keys.append(key)
                    }
                } catch {
                    deadLetters.append(deadLetter(for: message, reason: error.code.rawValue, detail: error.description))
                }
            }
            guard let effects = try apply(registrations, keys, connection: &connection) else { break }
            if !deadLetters.isEmpty {
                try acknowledgements.wait(for: try producer.send(deadLetters), timeout: configuration.outputTimeout)
            }
            metrics?.recorded(effects, deadLetters: deadLetters.count)
            counts.withLock {
                $0.recordsApplied += registrations.count + keys.count
                $0.keysApplied += keys.count
                $0.deadLetters += deadLetters.count
            }
            consumer.complete(batch)
        }
        try producer.close()
        // Commits each partition's watermark, then leaves the group.
        try consumer.close()
    }

    /// Applies `registrations` to the token registry and `keys` to the key registry, trying again
    /// while Redis cannot be reached, and returns their effects; nil when the feed was stopped
    /// before they could be applied.
    private func apply(_ registrations: [TokenRegistration], _ keys: [EncryptionKeyRecord],
                       connection: inout RedisConnection?) throws -> [TokenRegistry.RegistrationEffect]? {
        guard !registrations.isEmpty || !keys.isEmpty else { return [] }
        var outage = RedisOutage()
        var failedAttempts = 0
        while true {
            do {
                let link: RedisConnection
                if let connection {
                    link = connection
                } else {
                    link = try RedisConnection(configuration: configuration.redis)
                    connection = link
                }
                let effects = try TokenRegistry(connection: link).apply(registrations) + register(keys, on: link)
                redisAnswers.store(true, ordering: .releasing)
                if outage.answered() {
                    metrics?.redisAvailable.set(to: 1)
                    eventHandler(.redisRecovered(failedAttempts: failedAttempts))
                }
                return effects
            } catch let error as RedisError where error.isRetryable {
                redisAnswers.store(false, ordering: .releasing)
                let now = configuration.clock.now
                if outage.failed(at: now) {
                    metrics?.redisAvailable.set(to: 0)
                    eventHandler(.redisUnreachable(error))
                }
                failedAttempts += 1
                counts.withLock { $0.redisRetries += 1 }
                let delay = now.duration(to: outage.nextAttempt)
                _ = wake.wait(milliseconds: delay.wholeMilliseconds)
                if isStopping { return nil }
            }
        }
    }

    /// Registers `keys` (versions only move forward), one round trip per app; a key whose subject
    /// has the same or a later version is ``TokenRegistry/RegistrationEffect/superseded``. A key
    /// that cannot be sealed (OpenSSL's random generator failing) stops the feed: its
    /// ``KeyRegistryError`` is thrown.
    private func register(_ keys: [EncryptionKeyRecord], on connection: RedisConnection) throws -> [TokenRegistry.RegistrationEffect] {
        guard let keyEncryptionKey = configuration.keyEncryptionKey, !keys.isEmpty else { return [] }
        let registry = EncryptionKeyRegistry(connection: connection, keyEncryptionKey: keyEncryptionKey)
        var effects: [TokenRegistry.RegistrationEffect] = []
        var apps: [String] = []
        for key in keys where !apps.contains(key.app) { apps.append(key.app) }
        for app in apps {
            let registrations: [EncryptionKeyRegistry.Registration]
            do {
                registrations = try registry.register(app: app, keys.filter { $0.app == app }.map(\.entry))
            } catch {
                switch error {
                case .redis(let error): throw error
                case .key(let error): throw error
                }
            }
            effects += registrations.map { $0 == .registered ? .applied : .superseded }
        }
        return effects
    }

    /// Asks Redis whether it answers (`PING`, connecting first if need be) while no batch does, for
    /// ``isReady`` and `pushline_token_feed_redis_available`. An error waiting cannot fix is thrown.
    private func checkRedis(connection: inout RedisConnection?) throws(RedisError) {
        do throws(RedisError) {
            if connection == nil { connection = try RedisConnection(configuration: configuration.redis) }
            _ = try connection?.send(RedisCommand("PING"))
            redisAnswers.store(true, ordering: .releasing)
            metrics?.redisAvailable.set(to: 1)
        } catch {
            guard error.isRetryable else { throw error }
            redisAnswers.store(false, ordering: .releasing)
            metrics?.redisAvailable.set(to: 0)
        }
    }

    /// The dead letter's reason for a key record that arrives while the feed has no key-encryption key.
    static let missingKeyEncryptionKey = "MissingKeyEncryptionKey"

    /// The dead letter of a record that was not applied: its bytes with any key redacted, the code
    /// and the detail (the JSON path of a decoding error).
    private func deadLetter(for message: KafkaConsumerMessage, reason: String, detail: String) -> KafkaProducerMessage {
        let source = SourcePosition(message)
        let bytes = message.value ?? []
        let letter = DeadLetter(reason: reason, detail: detail, source: source,
                                original: DeadLetter.Original(bytes, showing: EncryptionKeyRecord.redacted(bytes)),
                                intentID: nil, recordedAt: WallClock.millisecondsSinceEpoch())
        return KafkaProducerMessage(topic: configuration.dlqTopic, key: message.key, value: letter.encoded)
    }
}
