import Runtime

extension Backoff {
    /// How long the worker waits before trying again what is out of its hands — Redis while it is
    /// out (``RedisOutage``, jittered), records Kafka refused (``OutputRetries``): 100 ms doubling to 5 s.
    static let worker = Backoff(initial: .milliseconds(100), maximum: .seconds(5))
}
