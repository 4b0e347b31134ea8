import APNsCore
import Foundation
import Pipeline
import Redis
import Synchronization
import Testing

/// The counts of the delivery policies (frequency caps, the seeds' budgets), against each store backend.
@Suite("Rolling windows")
struct RollingWindowsTests {
    private static let hour: Int64 = 3_600_000
    private static let day: Int64 = 86_400_000
    private static let start: Int64 = 1_764_500_000_000
    private static let limits = [RollingWindows.Limit(limit: 3, windowMilliseconds: hour), RollingWindows.Limit(limit: 4, windowMilliseconds: day)]

    private static func entry(_ member: String, at now: Int64, key: String = "pushline:cap:{app:user:u1}:marketing") -> RollingWindows.Entry {
        RollingWindows.Entry(key: key, member: member, now: now, limits: limits)
    }

    @Test("three per hour: the fourth in the hour is over, counted ones make room as they leave the window", arguments: StoreBackend.allCases)
    func hourlyLimit(backend: StoreBackend) async throws {
        let decisions = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            let first = try windows.count((1...4).map { Self.entry("d\($0)", at: Self.start + Int64($0)) })
            // An hour after the first was counted it leaves the hour's window: one place frees.
            let later = try windows.count([Self.entry("d5", at: Self.start + Self.hour + 1), Self.entry("d6", at: Self.start + Self.hour + 1)])
            return first + later
        }
        #expect(decisions == [.counted, .counted, .counted, .overLimit, .counted, .overLimit])
    }

    @Test("every window must have room: the day's limit holds after the hour's frees", arguments: StoreBackend.allCases)
    func dailyLimit(backend: StoreBackend) async throws {
        let decisions = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            var decisions = try windows.count((1...3).map { Self.entry("d\($0)", at: Self.start + Int64($0)) })
            decisions += try windows.count([Self.entry("d4", at: Self.start + 2 * Self.hour)])
            decisions += try windows.count([Self.entry("d5", at: Self.start + 4 * Self.hour)])
            decisions += try windows.count([Self.entry("d6", at: Self.start + Self.day + 10)])
            return decisions
        }
        #expect(decisions == [.counted, .counted, .counted, .counted, .overLimit, .counted])
    }

    @Test("the same delivery counted again is let through and not counted twice", arguments: StoreBackend.allCases)
    func sameDeliveryAgain(backend: StoreBackend) async throws {
        let decisions = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            return try windows.count([Self.entry("d1", at: Self.start), Self.entry("d1", at: Self.start + 1),
                                      Self.entry("d2", at: Self.start + 2), Self.entry("d3", at: Self.start + 3),
                                      Self.entry("d4", at: Self.start + 4)])
        }
        #expect(decisions == [.counted, .alreadyCounted, .counted, .counted, .overLimit])
    }

    @Test("a delivery over its limit stays over when met again, and takes no place", arguments: StoreBackend.allCases)
    func overThenAgain(backend: StoreBackend) async throws {
        let decisions = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            var decisions = try windows.count((1...4).map { Self.entry("d\($0)", at: Self.start) } + [Self.entry("d4", at: Self.start + 1)])
            decisions += try windows.count([Self.entry("d4", at: Self.start + 2)])
            // Once the first three leave the hour, three places: d4 was never counted.
            decisions += try windows.count((4...7).map { Self.entry("d\($0)", at: Self.start + Self.hour) })
            return decisions
        }
        #expect(decisions == [.counted, .counted, .counted, .overLimit, .overLimit, .overLimit, .counted, .overLimit, .overLimit, .overLimit])
    }

    @Test("earliest: when the first delivery counted in a window was counted, not one counted before it and not yet dropped; nil for none",
          arguments: StoreBackend.allCases)
    func earliestInTheWindow(backend: StoreBackend) async throws {
        let key = "pushline:budget:background:{earliest}"
        let (decisions, answers) = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            // The day's window keeps the first three, which have left the hour's window two hours later.
            var decisions = try windows.count((1...3).map { Self.entry("d\($0)", at: Self.start + Int64($0), key: key) })
            decisions += try windows.count([Self.entry("d4", at: Self.start + 2 * Self.hour, key: key)])
            let answers = try windows.earliest([key, "pushline:budget:background:{never}"], countedSince: Self.start + Self.hour + 1)
                + windows.earliest([key], countedSince: Self.start) + windows.earliest([key], countedSince: Self.start + 3 * Self.hour)
            return (decisions, answers)
        }
        #expect(decisions == [.counted, .counted, .counted, .counted])
        #expect(answers == [Self.start + 2 * Self.hour, nil, Self.start + 1, nil])
    }

    @Test("two workers racing for the last places: never more than the limit counted, no over member left behind",
          arguments: [StoreBackend.redis, .redisCluster])
    func twoWorkersRacing(backend: StoreBackend) async throws {
        let limit = 10
        let (counted, next) = try await withStores(backend) { stores in
            let configuration = try #require(stores.configuration)
            let limits = [RollingWindows.Limit(limit: limit, windowMilliseconds: Self.hour)]
            let results = Mutex<[Result<[RollingWindows.Decision], RedisError>]>([])
            // Each worker, on a connection of its own, counts 40 deliveries in batches of 4, at the
            // same moment as the other.
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                let result = Result { () throws(RedisError) -> [RollingWindows.Decision] in
                    let windows = RollingWindows(connection: try RedisConnection(configuration: configuration))
                    var decisions: [RollingWindows.Decision] = []
                    for batch in 0..<10 {
                        decisions += try windows.count((0..<4).map { index in
                            RollingWindows.Entry(key: "pushline:cap:{app:user:race}:marketing", member: "w\(worker)-\(batch)-\(index)",
                                                 now: Self.start, limits: limits)
                        })
                    }
                    return decisions
                }
                results.withLock { $0.append(result) }
            }
            let decisions = try results.withLock { results in try results.flatMap { try $0.get() } }
            let counted = decisions.count { $0 == .counted }
            // What a third delivery finds: the places the racers left, no more, no fewer.
            let next = try RollingWindows(connection: try #require(stores.connection)).count([RollingWindows.Entry(
                key: "pushline:cap:{app:user:race}:marketing", member: "after", now: Self.start + 1, limits: limits)])
            return (counted, next)
        }
        #expect(counted <= limit)
        #expect(next == [counted == limit ? .overLimit : .counted])
    }

    @Test("the same delivery met again after its longest window is counted anew", arguments: StoreBackend.allCases)
    func sameDeliveryAfterTheWindow(backend: StoreBackend) async throws {
        // A member that does not trim its key: only the second asking drops its old score.
        let member = try #require((0...).lazy.map { "d\($0)" }.first { !RollingWindows.trims($0) })
        let decisions = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            var decisions = try windows.count([Self.entry(member, at: Self.start)])
            decisions += try windows.count([Self.entry(member, at: Self.start + Self.day), Self.entry(member, at: Self.start + Self.day + 1)])
            // Counted anew: it takes a place in the new hour's three.
            decisions += try windows.count((1...3).map { Self.entry("e\($0)", at: Self.start + Self.day + 2) })
            return decisions
        }
        #expect(decisions == [.counted, .counted, .alreadyCounted, .counted, .counted, .overLimit])
    }

    @Test("a set keeps what left its windows only until an entry that trims: bounded, and never counted",
          arguments: [StoreBackend.redis, .redisCluster])
    func trimBoundsTheSet(backend: StoreBackend) async throws {
        let members = (0...).lazy.map { "d\($0)" }
        let keeping = Array(members.filter { !RollingWindows.trims($0) }.prefix(12))
        let trimming = try #require(members.first { RollingWindows.trims($0) })
        let (decisions, sizes) = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            let connection = try #require(stores.connection)
            let key = Self.entry("", at: 0).key
            // A day apart: each leaves the longest window before the next, stays in the set, and
            // is never counted again (three per hour, four per day hold for each).
            var decisions = try keeping.enumerated().flatMap { day, member in
                try windows.count([Self.entry(member, at: Self.start + Int64(day) * Self.day)])
            }
            var sizes = [try connection.send(RedisCommand("ZCARD", key)).integer]
            decisions += try windows.count([Self.entry(trimming, at: Self.start + Int64(keeping.count) * Self.day)])
            sizes.append(try connection.send(RedisCommand("ZCARD", key)).integer)
            return (decisions, sizes)
        }
        #expect(decisions == Array(repeating: .counted, count: 13))
        #expect(sizes == [12, 1])
    }

    @Test("a shorter window is counted only when the longest's count is above its limit", arguments: [StoreBackend.redis])
    func shorterWindowAskedOnlyInDoubt(backend: StoreBackend) async throws {
        let (decisions, counts) = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            let connection = try #require(stores.connection)
            // `ZCOUNT`s so far: redis-server's `cmdstat_zcount:calls=…`.
            func zcounts() throws -> Int {
                let stats = try connection.send(RedisCommand("INFO", "commandstats")).string ?? ""
                let line = stats.split(whereSeparator: \.isNewline).first { $0.hasPrefix("cmdstat_zcount:") }
                return line.flatMap { Int($0.dropFirst("cmdstat_zcount:calls=".count).prefix { $0.isNumber }) } ?? 0
            }
            // Day counts 1, 2, 3: none above the hour's three, so the day's count alone settles each.
            var decisions = try windows.count((1...3).map { Self.entry("d\($0)", at: Self.start + Int64($0)) })
            var counts = [try zcounts()]
            // Day count 4: the hour's count is asked, after.
            decisions += try windows.count([Self.entry("d4", at: Self.start + 4)])
            counts.append(try zcounts() - counts[0])
            return (decisions, counts)
        }
        #expect(decisions == [.counted, .counted, .counted, .overLimit])
        #expect(counts == [3, 2])
    }

    @Test("a shorter window counted after its batch's adds leaves out the batch's later entries",
          arguments: StoreBackend.allCases)
    func shorterWindowWithoutLaterEntries(backend: StoreBackend) async throws {
        let limits = [RollingWindows.Limit(limit: 2, windowMilliseconds: Self.hour),
                      RollingWindows.Limit(limit: 10, windowMilliseconds: Self.day)]
        let decisions = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            let key = Self.entry("", at: 0).key
            var decisions = try windows.count((1...2).map {
                RollingWindows.Entry(key: key, member: "d\($0)", now: Self.start, limits: limits)
            })
            // Two hours on, day counts 3, 4, 5 are above the hour's two: the hour is asked for each
            // once all three are added, and counted as if each came alone in its order.
            decisions += try windows.count((3...5).map {
                RollingWindows.Entry(key: key, member: "d\($0)", now: Self.start + 2 * Self.hour, limits: limits)
            })
            return decisions
        }
        #expect(decisions == [.counted, .counted, .counted, .counted, .overLimit])
    }

    @Test("keys count apart: another recipient or category has its own places", arguments: StoreBackend.allCases)
    func keysApart(backend: StoreBackend) async throws {
        let decisions = try await withStores(backend) { stores in
            let windows = stores.rollingWindows()
            _ = try windows.count((1...3).map { Self.entry("d\($0)", at: Self.start) })
            return try windows.count([Self.entry("d4", at: Self.start), Self.entry("d4", at: Self.start, key: "pushline:cap:{app:user:u2}:marketing")])
        }
        #expect(decisions == [.overLimit, .counted])
    }

    @Test("key names: one recipient's categories share a hash tag")
    func keyNames() throws {
        let token = try DeviceToken(String(repeating: "ab", count: 32))
        #expect(RollingWindows.frequencyCapKey(app: "com.example", user: "u1", token: token, category: "marketing")
            == "pushline:cap:{com.example:user:u1}:marketing")
        #expect(RollingWindows.frequencyCapKey(app: "com.example", user: nil, token: token, category: "news")
            == "pushline:cap:{com.example:device:\(token.hex)}:news")
        #expect(RollingWindows.backgroundBudgetKey(token: token) == "pushline:budget:background:{\(token.hex)}")
    }
}
