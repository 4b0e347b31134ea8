import Foundation
import LocalStack
import Pipeline
import PushlineTestKit
import Redis
import Synchronization
import Testing

/// Entries whose bodies hold bytes a text protocol would break: NUL, 0xFF, spaces, a newline.
/// `leasedUntil`: as a take returns it, with the end of its lease.
private func entry(_ number: Int, releaseAt: Int64, leasedUntil: Int64? = nil) -> DeferredEntry {
    DeferredEntry(id: "delivery-\(number)", releaseAt: releaseAt, body: [0, 0xff, UInt8(ascii: " "), 10] + Array("body \(number)".utf8),
                  leasedUntil: leasedUntil)
}

/// A store of one shard (keys `pushline:deferred:{notifications:0}…`) leasing for 10 s, and its connection.
private func oneShard(_ stores: Stores) throws -> (RedisConnection, DeferredStore) {
    let connection = try #require(stores.connection)
    return (connection, DeferredStore(connection: connection, pipeline: "notifications", configuration: .init(shards: 1, lease: .seconds(10))))
}

@Suite("Deferred store (quiet hours, the background budget) in Redis")
struct DeferredStoreTests {
    @Test("only what is due is taken, body byte for byte; a taken entry is leased, due again after the lease unless completed",
          arguments: [StoreBackend.redis, .redisCluster])
    func takeLeasesWhatIsDue(backend: StoreBackend) async throws {
        let steps = try await withStores(backend) { stores in
            let store = DeferredStore(connection: try #require(stores.connection), pipeline: "notifications",
                                      configuration: .init(shards: 4, lease: .seconds(10)))
            try store.keep([entry(1, releaseAt: 1_000), entry(2, releaseAt: 2_000), entry(3, releaseAt: 20_000)])
            let first = try store.takeDue(now: 1_500)
            let again = try store.takeDue(now: 1_500)
            let next = try store.nextRelease()
            let afterLease = try store.takeDue(now: 11_501)  // the lease ended at 11,500
            try store.complete(afterLease)
            let afterComplete = try store.takeDue(now: 30_000)
            let count = try store.count()
            try store.complete(afterComplete)
            return (first, again, next, afterLease.map(\.id).sorted(), afterComplete.map(\.id).sorted(), count, try store.count())
        }
        #expect(steps.0 == [entry(1, releaseAt: 1_000, leasedUntil: 11_500)])
        #expect(steps.1.isEmpty, "a leased entry is not taken again within its lease")
        #expect(steps.2 == 2_000)
        #expect(steps.3 == ["delivery-1", "delivery-2"], "the lease ended without completion: due again, with what fell due since")
        #expect(steps.4 == ["delivery-3"])
        #expect(steps.5 == 1)
        #expect(steps.6 == 0)
    }

    @Test("an id whose body is gone (completed half-way by a crash) is dropped by the take; the others in its shard are taken and leased",
          arguments: [StoreBackend.redis, .redisCluster])
    func takeDropsAnIdWithoutBody(backend: StoreBackend) async throws {
        let steps = try await withStores(backend) { stores in
            let (connection, store) = try oneShard(stores)
            try store.keep((1...5).map { entry($0, releaseAt: 1_000) })
            let removed = try connection.pipeline([RedisCommand("HDEL", "pushline:deferred:{notifications:0}:entries", "delivery-3")])
            let taken = try store.takeDue(now: 1_500)
            let countAfterTake = try store.count()
            let again = try store.takeDue(now: 1_500)
            return (removed.first?.integer, taken, countAfterTake, again)
        }
        #expect(steps.0 == 1, "the body was there to remove")
        #expect(steps.1.sorted { $0.id < $1.id } == [1, 2, 4, 5].map { entry($0, releaseAt: 1_000, leasedUntil: 11_500) })
        #expect(steps.2 == 4, "the id without a body left the shard")
        #expect(steps.3.isEmpty, "the others are leased")
    }

    @Test("a value not written by keep (no release time before its body) is taken whole as the body, due at the take, leased, and completed like any entry",
          arguments: [StoreBackend.redis, .redisCluster])
    func takeLeasesAnUnreadableValueWhole(backend: StoreBackend) async throws {
        let steps = try await withStores(backend) { stores in
            let (connection, store) = try oneShard(stores)
            try store.keep([entry(1, releaseAt: 1_000)])
            let written = try connection.pipeline([RedisCommand("HSET", "pushline:deferred:{notifications:0}:entries", "foreign", "not an entry"),
                                                   RedisCommand("ZADD", "pushline:deferred:{notifications:0}", "1000", "foreign")])
            let taken = try store.takeDue(now: 1_500)
            let again = try store.takeDue(now: 1_500)
            try store.complete(taken)
            return (written.map(\.integer), taken, again, try store.count())
        }
        #expect(steps.0 == [1, 1], "the foreign value and its id were written")
        #expect(steps.1.sorted { $0.id < $1.id } == [entry(1, releaseAt: 1_000, leasedUntil: 11_500),
                                                      DeferredEntry(id: "foreign", releaseAt: 1_500, body: Array("not an entry".utf8), leasedUntil: 11_500)])
        #expect(steps.2.isEmpty, "both are leased")
        #expect(steps.3 == 0, "both completed")
    }

    @Test("in memory (the demo without redis-server): the same lease; due entries taken once within it, again after it unless completed")
    func inMemoryLease() {
        let store = InMemoryDeferredStore(configuration: .init(shards: 4, lease: .seconds(10)))
        store.keep([entry(1, releaseAt: 1_000), entry(2, releaseAt: 2_000), entry(3, releaseAt: 20_000)])
        #expect(store.takeDue(now: 1_500) == [entry(1, releaseAt: 1_000, leasedUntil: 11_500)])
        #expect(store.takeDue(now: 1_500).isEmpty, "a leased entry is not taken again within its lease")
        let afterLease = store.takeDue(now: 11_501)  // the lease ended at 11,500
        #expect(afterLease.map(\.id).sorted() == ["delivery-1", "delivery-2"])
        store.complete(afterLease)
        store.keep([DeferredEntry(id: "delivery-3", releaseAt: 25_000, body: [1])])
        #expect(store.takeDue(now: 24_000).isEmpty, "keeping an id again replaces its entry")
        #expect(store.takeDue(now: 30_000) == [DeferredEntry(id: "delivery-3", releaseAt: 25_000, body: [1], leasedUntil: 40_000)])
        #expect(store.count() == 1)
    }

    /// Takes entries 1 and 2 (leased until 11,500), keeps 1 again with a later release (a release
    /// deferred again by the worker that read it) — at 11,500, the very end of the lease — then
    /// completes both as taken; returns what is due before 1's new release, and then.
    private static func completeAfterKeptAgain(_ store: any DeferredEntryStore) throws -> (before: [DeferredEntry], then: [DeferredEntry]) {
        try store.keep([entry(1, releaseAt: 1_000), entry(2, releaseAt: 1_000)])
        let taken = try store.takeDue(now: 1_500)
        try store.keep([entry(1, releaseAt: 11_500)])
        try store.complete(taken)
        return (try store.takeDue(now: 11_499), try store.takeDue(now: 11_500))
    }

    @Test("completing what a take returned leaves an entry kept again since (a background push's release deferred again), even at the lease's end: it is due at its new release; the other is removed",
          arguments: [StoreBackend.redis, .redisCluster])
    func completeLeavesAnEntryKeptAgain(backend: StoreBackend) async throws {
        let steps = try await withStores(backend) { stores in
            let store = DeferredStore(connection: try #require(stores.connection), pipeline: "notifications",
                                      configuration: .init(shards: 4, lease: .seconds(10)))
            let due = try Self.completeAfterKeptAgain(store)
            return (due.before, due.then, try store.count())
        }
        #expect(steps.0.isEmpty, "1 waits for its new release")
        #expect(steps.1 == [entry(1, releaseAt: 11_500, leasedUntil: 21_500)])
        #expect(steps.2 == 1, "2 was removed; 1, leased again, is kept until completed")
    }

    @Test("in memory: completing what a take returned leaves an entry kept again since; the other is removed")
    func inMemoryCompleteLeavesAnEntryKeptAgain() throws {
        let store = InMemoryDeferredStore(configuration: .init(shards: 4, lease: .seconds(10)))
        let steps = try Self.completeAfterKeptAgain(store)
        #expect(steps.before.isEmpty, "1 waits for its new release")
        #expect(steps.then == [entry(1, releaseAt: 11_500, leasedUntil: 21_500)])
        #expect(store.count() == 1, "2 was removed; 1, leased again, is kept until completed")
    }

    @Test("completing 9,000 entries of one shard from five takes (more than Lua can unpack at once, so more than one completion script) removes each still leased; the one kept again since stays",
          arguments: [StoreBackend.redis, .redisCluster])
    func completeManyOfOneShard(backend: StoreBackend) async throws {
        let steps = try await withStores(backend) { stores in
            let store = DeferredStore(connection: try #require(stores.connection), pipeline: "notifications",
                                      configuration: .init(shards: 1, lease: .seconds(10), takeLimit: 2_000))
            try store.keep((1...9_000).map { entry($0, releaseAt: 1_000) })
            let taken = try (1...5).flatMap { _ in try store.takeDue(now: 1_500) }
            try store.keep([entry(4_321, releaseAt: 50_000)])
            try store.complete(taken)
            return (taken.count, try store.count(), try store.takeDue(now: 50_000))
        }
        #expect(steps.0 == 9_000, "five takes of at most 2,000 took every entry once")
        #expect(steps.1 == 1)
        #expect(steps.2 == [entry(4_321, releaseAt: 50_000, leasedUntil: 60_000)])
    }

    /// Entry 1 due at 1,000 taken at 1,500 (leased until 11,500), entry 2 due at 5,000 taken at 5,500
    /// (until 15,500); both completed in one call; returns what is due at 30,000 (after both leases).
    private static func completeTwoLeases(_ store: any DeferredEntryStore) throws -> [DeferredEntry] {
        try store.keep([entry(1, releaseAt: 1_000), entry(2, releaseAt: 5_000)])
        let first = try store.takeDue(now: 1_500)
        let second = try store.takeDue(now: 5_500)
        try store.complete(first + second)
        return try store.takeDue(now: 30_000)
    }

    @Test("completing entries of two takes (two leases) in one call removes both",
          arguments: [StoreBackend.redis, .redisCluster])
    func completeTwoLeasesRemovesBoth(backend: StoreBackend) async throws {
        let (due, count) = try await withStores(backend) { stores in
            let store = try oneShard(stores).1
            return (try Self.completeTwoLeases(store), try store.count())
        }
        #expect(due.isEmpty)
        #expect(count == 0)
    }

    @Test("in memory: completing entries of two takes (two leases) in one call removes both")
    func inMemoryCompleteTwoLeasesRemovesBoth() throws {
        let store = InMemoryDeferredStore(configuration: .init(shards: 4, lease: .seconds(10)))
        #expect(try Self.completeTwoLeases(store).isEmpty)
        #expect(store.count() == 0)
    }

    /// Keeps entry 2 due at 1,000 and takes it at 1,500; keeps entry 1 due at 1,000; completes 2 as
    /// taken and 1 as kept (no take returned it); returns what is due at 1,500 then.
    private static func completeWithoutLease(_ store: any DeferredEntryStore) throws -> [DeferredEntry] {
        try store.keep([entry(2, releaseAt: 1_000)])
        let taken = try store.takeDue(now: 1_500)
        try store.keep([entry(1, releaseAt: 1_000)])
        try store.complete(taken + [entry(1, releaseAt: 1_000)])
        return try store.takeDue(now: 1_500)
    }

    @Test("completing an entry no take returned (no lease), beside one a take returned, removes only the taken one: the other is taken when due",
          arguments: [StoreBackend.redis, .redisCluster])
    func completeWithoutLeaseKeeps(backend: StoreBackend) async throws {
        let (taken, count) = try await withStores(backend) { stores in
            let store = try oneShard(stores).1
            return (try Self.completeWithoutLease(store), try store.count())
        }
        #expect(taken == [entry(1, releaseAt: 1_000, leasedUntil: 11_500)])
        #expect(count == 1)
    }

    @Test("in memory: completing an entry no take returned, beside one a take returned, removes only the taken one")
    func inMemoryCompleteWithoutLeaseKeeps() throws {
        let store = InMemoryDeferredStore(configuration: .init(shards: 4, lease: .seconds(10)))
        #expect(try Self.completeWithoutLease(store) == [entry(1, releaseAt: 1_000, leasedUntil: 11_500)])
        #expect(store.count() == 1)
    }

    @Test("keeping an entry with the id of a kept one replaces it (a redelivered intent deferred again)",
          arguments: [StoreBackend.redis, .redisCluster])
    func keepReplaces(backend: StoreBackend) async throws {
        let (taken, count) = try await withStores(backend) { stores in
            let store = DeferredStore(connection: try #require(stores.connection), pipeline: "notifications")
            try store.keep([entry(1, releaseAt: 5_000)])
            try store.keep([DeferredEntry(id: "delivery-1", releaseAt: 4_000, body: [1, 2, 3])])
            return (try store.takeDue(now: 4_500), try store.count())
        }
        #expect(taken == [DeferredEntry(id: "delivery-1", releaseAt: 4_000, body: [1, 2, 3], leasedUntil: 4_500 + 60_000)])
        #expect(count == 1)
    }

    /// An entry of the coalescing key `device-a` (the background budget: one device's pushes).
    private static func coalescing(_ number: Int) -> DeferredEntry {
        DeferredEntry(id: "delivery-\(number)", releaseAt: 50_000, body: [UInt8(number)], coalescing: "device-a")
    }

    /// Keeps 1; then 2 (replacing 1) with 3, which does not coalesce; 2 again (itself: nothing
    /// replaced); then 4 and 5 in one keep (4 replaces 2, 5 replaces 4). Returns the ids due at
    /// 1,000 (before any release time) and whether 1…5 were replaced.
    private static func coalesce(_ store: any DeferredEntryStore) throws -> (due: [String], replaced: [Bool]) {
        try store.keep([coalescing(1)])
        try store.keep([coalescing(2), entry(3, releaseAt: 60_000)])
        try store.keep([coalescing(2)])
        let dueFirst = try store.takeDue(now: 1_000).map(\.id)
        try store.keep([coalescing(4), coalescing(5)])
        let dueThen = try store.takeDue(now: 1_000).map(\.id).sorted()
        return (dueFirst + dueThen, try store.replaced((1...5).map { "delivery-\($0)" }))
    }

    @Test("coalescing (the background budget): the newest entry per key is kept; each one it replaces is marked and due at once",
          arguments: [StoreBackend.redis, .redisCluster])
    func coalescingKeepsTheNewest(backend: StoreBackend) async throws {
        let steps = try await withStores(backend) { stores in
            try Self.coalesce(DeferredStore(connection: try #require(stores.connection), pipeline: "notifications",
                                            configuration: .init(shards: 4)))
        }
        #expect(steps.due == ["delivery-1", "delivery-2", "delivery-4"])
        #expect(steps.replaced == [true, true, false, true, false])
    }

    @Test("coalescing in memory: the same as in Redis")
    func coalescingInMemory() throws {
        let steps = try Self.coalesce(InMemoryDeferredStore(configuration: .init(shards: 4)))
        #expect(steps.due == ["delivery-1", "delivery-2", "delivery-4"])
        #expect(steps.replaced == [true, true, false, true, false])
    }

    /// Keeps 1 (due at 1,000) and takes it, leased; keeps 2, which replaces 1 under their coalescing
    /// key while 1 is leased; completes the take of 1. Returns the ids due the millisecond after.
    private static func replaceWhileLeased(_ store: any DeferredEntryStore) throws -> [String] {
        try store.keep([DeferredEntry(id: "delivery-1", releaseAt: 1_000, body: [1], coalescing: "device-a")])
        let taken = try store.takeDue(now: 1_000)
        try store.keep([coalescing(2)])
        try store.complete(taken)
        return try store.takeDue(now: 1_001).map(\.id)
    }

    @Test("an entry replaced while leased is due at once, no longer under its take's lease: completing that take leaves it",
          arguments: [StoreBackend.redis, .redisCluster])
    func replacedWhileLeased(backend: StoreBackend) async throws {
        let due = try await withStores(backend) { stores in
            try Self.replaceWhileLeased(DeferredStore(connection: try #require(stores.connection), pipeline: "notifications",
                                                      configuration: .init(shards: 4)))
        }
        #expect(due == ["delivery-1"])
    }

    @Test("in memory: an entry replaced while leased is due at once, and completing its take leaves it")
    func replacedWhileLeasedInMemory() throws {
        #expect(try Self.replaceWhileLeased(InMemoryDeferredStore(configuration: .init(shards: 4))) == ["delivery-1"])
    }

    @Test("entries are kept in Redis: a store on a new connection (a restarted worker) takes them")
    func survivesTheProcess() async throws {
        let server = try await RedisServer.start()
        let configuration = RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: server.port))
        let taken = try await DedicatedThread.run {
            try withExtendedLifetime(server) {
                try DeferredStore(connection: try RedisConnection(configuration: configuration), pipeline: "p").keep(
                    (0..<50).map { entry($0, releaseAt: 100) })
                return try DeferredStore(connection: try RedisConnection(configuration: configuration), pipeline: "p").takeDue(now: 100)
            }
        }
        #expect(taken.count == 50)
        #expect(Set(taken.map(\.id)).count == 50)
    }

    @Test("two workers taking at once take each of 4,000 due entries exactly once")
    func twoTakersTakeEachOnce() async throws {
        let server = try await RedisServer.start()
        let configuration = RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: server.port))
        let total = 4_000
        try await DedicatedThread.run {
            try DeferredStore(connection: try RedisConnection(configuration: configuration), pipeline: "p")
                .keep((0..<total).map { entry($0, releaseAt: 1_000) })
        }
        // Small takes, so the two interleave over many round trips.
        let storeConfiguration = DeferredStore.Configuration(shards: 16, lease: .seconds(3600), takeLimit: 2)
        let ready = StartLine()
        let bothTook = StartLine()
        let takers = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await DedicatedThread.run {
                        let store = DeferredStore(connection: try RedisConnection(configuration: configuration), pipeline: "p",
                                                  configuration: storeConfiguration)
                        // Both connected before either takes: they take side by side.
                        try ready.arriveAndWait(for: 2)
                        // Each takes once, then waits for the other's first take: neither can empty
                        // the store before the other started, however the threads are scheduled.
                        var ids = try store.takeDue(now: 2_000).map(\.id)
                        try bothTook.arriveAndWait(for: 2)
                        while true {
                            let taken = try store.takeDue(now: 2_000)
                            if taken.isEmpty { return ids }
                            ids += taken.map(\.id)
                        }
                    }
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        withExtendedLifetime(server) {}
        var times: [String: Int] = [:]
        for id in takers.joined() { times[id, default: 0] += 1 }
        #expect(takers.allSatisfy { !$0.isEmpty }, "both takers took some: \(takers.map(\.count))")
        #expect(takers.map(\.count).reduce(0, +) == total)
        #expect(times.count == total)
        #expect(times.values.filter { $0 > 1 }.count == 0, "taken twice: \(times.filter { $0.value > 1 }.keys.sorted().prefix(5))")
    }
}

/// Lets threads start together: each arrives, then waits until `count` have (throwing after 30 s,
/// so a thread whose partner failed before arriving fails too instead of waiting for ever).
private final class StartLine: Sendable {
    private let arrived = Atomic<Int>(0)

    func arriveAndWait(for count: Int) throws {
        arrived.add(1, ordering: .relaxed)
        try Deadline.wait(.seconds(30), every: .milliseconds(1), for: "\(count) threads at the start line") {
            arrived.load(ordering: .relaxed) >= count
        }
    }
}
