import PushlineConfiguration
import Pipeline
import Runtime

/// Planned deliveries that a throttle holds until its token bucket gives them a place
/// (docs/policies.md): one first-in first-out queue per throttle, whose buckets are asked for as
/// many tokens as deliveries wait, all throttles in one round trip, at most every
/// ``minimumInterval`` (and no sooner than the bucket says a token will be back). A delivery is
/// held by the first throttle, in the order written, that matches it.
///
/// Pure (no clock, no I/O): the ``WorkerLoop/StateMachine`` owns one, asks it for the requests
/// due (``Action/takeTokens(_:)``) and hands it the grants.
struct ThrottleGate<Element> {
    /// The least time between two asks while deliveries wait (10 ms): a bucket refills
    /// `rate × interval` tokens in it, so a `burst` of at least `rate / 100` (checked at load)
    /// loses nothing to it.
    static var minimumInterval: Duration { .seconds(1) / ThrottleConfiguration.asksPerSecond }

    let throttles: [ThrottleConfiguration]
    private let matches: (ThrottleConfiguration, Element) -> Bool
    private var held: [[Element]]
    /// Whether a round trip for tokens is out, and the requests it carries.
    private var asked: [(throttle: Int, request: ThrottleRequest)]?
    /// When to ask again; nil while nothing waits.
    private var nextAsk: MonotonicClock.Instant?

    init(throttles: [ThrottleConfiguration], matches: @escaping (ThrottleConfiguration, Element) -> Bool) {
        self.throttles = throttles
        self.matches = matches
        held = Array(repeating: [], count: throttles.count)
    }

    /// Deliveries held, across throttles.
    private(set) var heldCount = 0

    /// Deliveries held by each throttle, in the order of ``throttles``.
    // A closure, not `\.count`: a key path in this generic type is instantiated at run time on
    // every call (`swift_getKeyPath`), and the loop asks this on every turn.
    var heldByThrottle: [Int] { held.map { $0.count } }

    /// Holds the deliveries a throttle matches and returns the others, in order.
    mutating func admit(_ elements: [Element], now: MonotonicClock.Instant) -> [Element] {
        guard !throttles.isEmpty else { return elements }
        var free: [Element] = []
        for element in elements {
            guard let throttle = throttles.firstIndex(where: { matches($0, element) }) else {
                free.append(element)
                continue
            }
            held[throttle].append(element)
            heldCount += 1
            nextAsk = min(nextAsk ?? now, now)
        }
        return free
    }

    /// The buckets to ask at `now`, one request per throttle with deliveries waiting; empty when
    /// nothing waits, a round trip is out, or it is not yet time.
    mutating func requests(now: MonotonicClock.Instant) -> [ThrottleRequest] {
        guard asked == nil, let due = nextAsk, due <= now else { return [] }
        let asking = held.indices.filter { !held[$0].isEmpty }.map { index in
            let throttle = throttles[index]
            return (throttle: index, request: ThrottleRequest(bucket: throttle.bucket, rate: Double(throttle.rate), burst: throttle.burst,
                                           wanted: held[index].count))
        }
        guard !asking.isEmpty else {
            nextAsk = nil
            return []
        }
        asked = asking
        return asking.map(\.request)
    }

    /// The buckets' answers to the last ``requests(now:)``: that many deliveries of each throttle
    /// go, oldest first; what still waits is asked for again after the longest of the buckets'
    /// waits that matter (at least ``minimumInterval``).
    mutating func granted(_ grants: [ThrottleGrant], now: MonotonicClock.Instant) -> [Element] {
        guard let asking = asked else { return [] }
        asked = nil
        var released: [Element] = []
        var wait = Self.minimumInterval
        for ((index, _), grant) in zip(asking, grants) {
            let count = min(grant.granted, held[index].count)
            released += held[index][..<count]
            held[index].removeFirst(count)
            heldCount -= count
            if !held[index].isEmpty { wait = max(wait, .milliseconds(grant.retryAfterMilliseconds)) }
        }
        nextAsk = heldCount > 0 ? now + wait : nil
        return released
    }

    /// The round trip for tokens failed (Redis out): ask again once Redis answers, or `retryAt`.
    mutating func failed(retryAt: MonotonicClock.Instant) {
        asked = nil
        nextAsk = heldCount > 0 ? retryAt : nil
    }

    /// Removes the held deliveries `shouldBeRemoved` picks (those of messages handed back).
    mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        for index in held.indices { held[index].removeAll(where: shouldBeRemoved) }
        heldCount = held.reduce(0) { $0 + $1.count }
        if heldCount == 0 { nextAsk = nil }
    }
}
