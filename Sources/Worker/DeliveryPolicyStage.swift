import APNsCore
import Enrichment
import Pipeline
import PushlineConfiguration
import Redis
import Runtime

/// The policy stage (docs/policies.md): after planning and the claims (idempotency, collapse
/// windows) and before sending, each delivery gets one ``Decision``. The policies run in a fixed
/// order — time to live, quiet hours, frequency caps and the seeds' budgets — and those kept in
/// Redis share one pipelined round trip per batch. A background push over its device's budget is
/// deferred until the window has room (coalesced: the deferred store keeps the newest per device);
/// at its release it is counted again, or ends `suppressed` if a newer one replaced it. Time comes
/// from the worker's injectable clock.
///
/// Confined like its store's `RedisConnection`: one thread at a time (the worker's Redis stage).
struct DeliveryPolicyStage {
    /// What the stage decided for one delivery.
    enum Decision: Sendable {
        /// Send it, perhaps changed (its `apns-expiration` from a time to live, `apns-priority`
        /// lowered past a Live Activity budget).
        case send(PlannedDelivery)
        /// Not sent: its outcome (`expired`/`TimeToLiveElapsed`, `suppressed`/`FrequencyCapped`,
        /// `suppressed`/`BackgroundBudget`); its claim is settled with it.
        case outcome(OutcomeEvent.Status, reason: String)
        /// Not sent now, kept until `until` (Unix ms) then released; its claim is settled
        /// `deferred` with the reason meanwhile.
        case deferred(until: Int64, Deferral)
    }

    /// Why a delivery is deferred: its outcome's reason.
    enum Deferral: String, Sendable {
        /// Inside its recipient's quiet hours; released at the window's end.
        case quietHours = "QuietHours"
        /// A background push over its device's budget; released when the earliest push counted
        /// leaves the window, and coalesced: the newest per device is kept, an older one replaced.
        case backgroundBudget = "BackgroundBudget"
    }

    /// What one call decided, in the deliveries' order, and what the worker counts of it.
    struct Decisions: Sendable {
        var decisions: [Decision] = []
        /// Live Activity updates sent at priority 5 because their activity's budget was spent.
        var priorityLowered = 0
    }

    private let policies: DeliveryPolicies
    /// The frequency caps' limits of every category, resolved once: asked per delivery, they were
    /// three arrays made for each (docs/BENCHMARKS.md, issue 17, branch `policies4`).
    private let frequencyCaps: DeliveryPolicies.FrequencyCaps.Resolved<RollingWindows.Limit>
    private let quietHours: QuietHours?
    private let windows: any RollingWindowStore
    /// Where a released background push learns whether a newer one replaced it.
    private let deferredStore: any DeferredEntryStore
    private let clock: WallClock

    init(policies: DeliveryPolicies, windows: any RollingWindowStore, deferredStore: any DeferredEntryStore, clock: WallClock) {
        self.policies = policies
        frequencyCaps = policies.frequencyCaps.resolved(Self.limit)
        quietHours = policies.quietHours.map(Self.window)
        self.windows = windows
        self.deferredStore = deferredStore
        self.clock = clock
    }

    /// The window of `quiet_hours` (its time zone was checked at load).
    private static func window(_ configuration: QuietHoursConfiguration) -> QuietHours {
        let coverage: QuietHours.Coverage = switch configuration.coverage {
        case .all: .all
        case .categories(let listed): .categories(Set(listed))
        case .allExcept(let exempt): .allExcept(Set(exempt))
        }
        return QuietHours(start: configuration.start, end: configuration.end, timeZone: configuration.timeZone, coverage: coverage)
    }

    /// One decision per delivery, in order; at most one round trip to the store (more only in a
    /// batch where a delivery is over a limit, or counts above a shorter window's limit in its
    /// longest: ``RollingWindows``, and the background budget's release time; or with releases of
    /// background pushes: whether they were replaced).
    func decide(_ planned: [PlannedDelivery]) throws(RedisError) -> Decisions {
        let now = clock.millisecondsSinceEpoch()
        var result = Decisions()
        result.decisions.reserveCapacity(planned.count)
        var quietReleases: [String?: Int64?] = [:]
        for delivery in planned {
            let decision = Self.timeToLive(delivery, policies: policies, now: now)
            guard case .send = decision, let release = quietRelease(delivery, now: now, known: &quietReleases) else {
                result.decisions.append(decision)
                continue
            }
            result.decisions.append(.deferred(until: release, .quietHours))
        }
        try suppressReplaced(planned, &result.decisions)
        // The rolling-window counts of the deliveries still to be sent: one entry per window key.
        var counted = CountedEntries()
        for (index, decision) in result.decisions.enumerated() {
            guard case .send(let delivery) = decision else { continue }
            countPolicies(of: delivery, at: index, now: now, into: &counted)
        }
        let (entries, owners) = (counted.entries, counted.owners)
        guard !entries.isEmpty else { return result }
        // Background pushes over their budget: (decision index, budget key).
        var overBudget: [(index: Int, key: String)] = []
        for ((index, policy), (entry, answer)) in zip(owners, zip(entries, try windows.count(entries))) where answer == .overLimit {
            guard case .send(let delivery) = result.decisions[index] else { continue }
            switch policy {
            case .frequencyCap: result.decisions[index] = .outcome(.suppressed, reason: "FrequencyCapped")
            case .backgroundBudget: overBudget.append((index, entry.key))
            case .liveActivityBudget:
                result.decisions[index] = .send(delivery.replacingHeaders(priority: .powerConsiderate, expiration: delivery.delivery.expiration))
                result.priorityLowered += 1
            }
        }
        guard !overBudget.isEmpty else { return result }
        let window = Int64(policies.backgroundBudget.limit.window.wholeMilliseconds)
        let windowStart = now - window + 1  // as the count's `ZCOUNT` reads the window
        for ((index, _), earliest) in zip(overBudget, try windows.earliest(overBudget.map(\.key), countedSince: windowStart)) {
            result.decisions[index] = .deferred(until: (earliest ?? now) + window, .backgroundBudget)
        }
        return result
    }

    /// Releases of background pushes a newer one replaced in the deferred store (coalesced) end
    /// `suppressed`/`BackgroundBudget` without being counted; one round trip, only for a batch with
    /// releases of background pushes still to be sent.
    private func suppressReplaced(_ planned: [PlannedDelivery], _ decisions: inout [Decision]) throws(RedisError) {
        guard policies.backgroundBudget.enabled else { return }
        let releases = planned.indices.filter { index in
            guard case .send = decisions[index] else { return false }
            return planned[index].isBackgroundRelease
        }
        guard !releases.isEmpty else { return }
        let replaced = try deferredStore.replaced(releases.map { planned[$0].delivery.notificationID.description })
        for (index, replaced) in zip(releases, replaced) where replaced {
            decisions[index] = .outcome(.suppressed, reason: Deferral.backgroundBudget.rawValue)
        }
    }

    /// The policies that count deliveries in rolling windows.
    private enum CountedPolicy {
        case frequencyCap, backgroundBudget, liveActivityBudget
    }

    /// A batch's rolling-window counts: one entry per window key, and whose it is (the delivery's
    /// index in the batch, the policy).
    private struct CountedEntries {
        var entries: [RollingWindows.Entry] = []
        var owners: [(index: Int, policy: CountedPolicy)] = []

        mutating func append(_ entry: RollingWindows.Entry, of index: Int, for policy: CountedPolicy) {
            entries.append(entry)
            owners.append((index, policy))
        }
    }

    /// The time to live alone, which needs no Redis: for `redis_unreachable: fail_open` while Redis
    /// is out, when no other policy can run. The deliveries to send (with their `apns-expiration`),
    /// and the outcomes of the expired ones.
    static func timeToLiveOnly(_ planned: [PlannedDelivery], policies: DeliveryPolicies, clock: WallClock, records: OutputRecords)
        -> (send: [PlannedDelivery], expired: [WorkerOutput]) {
        let now = clock.millisecondsSinceEpoch()
        var result: (send: [PlannedDelivery], expired: [WorkerOutput]) = ([], [])
        for delivery in planned {
            switch timeToLive(delivery, policies: policies, now: now) {
            case .send(let sending): result.send.append(sending)
            case .outcome(let status, let reason): result.expired.append(records.outcome(delivery, status, reason: reason))
            case .deferred: preconditionFailure("the time to live defers nothing")
            }
        }
        return result
    }

    /// `expired`/`TimeToLiveElapsed` once the delivery's deadline has passed; otherwise the deadline
    /// becomes its `apns-expiration` unless the intent set one. The deadline is `expires_at`, else
    /// the template's `ttl` (else the pipeline's `ttl.default`) after `created_at`, or after now
    /// for an intent without one.
    private static func timeToLive(_ planned: PlannedDelivery, policies: DeliveryPolicies, now: Int64) -> Decision {
        let timeToLive = planned.delivery.policy.timeToLiveSeconds ?? policies.timeToLive.fallback.map { Int64($0.wholeMilliseconds / 1000) }
        guard let deadline = planned.delivery.policy.expiresAt ?? timeToLive.map({ (planned.createdAt ?? now) / 1000 + $0 }) else {
            return .send(planned)
        }
        guard now < deadline * 1000 else { return .outcome(.expired, reason: "TimeToLiveElapsed") }
        guard planned.delivery.expiration == .unspecified else { return .send(planned) }
        return .send(planned.replacingHeaders(priority: planned.delivery.priority, expiration: .at(unixSeconds: deadline)))
    }

    /// When `planned` may go, if its recipient's quiet hours hold it now: not for a release (it
    /// has waited for them already), an intent that does not respect them, or a category they do
    /// not cover. In the recipient's profile time zone, else the window's. `known` keeps the answer
    /// per zone for this `now`, which every delivery of a call shares: the calendar is asked once
    /// per zone and batch, not per delivery (it was 2 % of the worker's samples, on the Redis
    /// stage's thread, docs/BENCHMARKS.md).
    private func quietRelease(_ planned: PlannedDelivery, now: Int64, known: inout [String?: Int64?]) -> Int64? {
        guard let quietHours, !planned.isRelease, planned.delivery.policy.respectQuietHours,
              quietHours.covers(category: planned.delivery.policy.category) else { return nil }
        if let release = known[planned.profileTimeZone] { return release }
        let release = quietHours.release(at: now, userTimeZone: planned.profileTimeZone)
        known[planned.profileTimeZone] = release
        return release
    }

    /// Appends the rolling-window counts `planned` (the batch's `index`) takes part in: its
    /// category's frequency caps (per user, or per device without one), a background push's device
    /// budget, a priority-10 Live Activity update's activity budget (`end` is never lowered, so never
    /// counted).
    private func countPolicies(of planned: PlannedDelivery, at index: Int, now: Int64, into counted: inout CountedEntries) {
        // The delivery's fields read in place: a local copy of it would retain and release them all.
        // Made at the first entry: most deliveries take part in none.
        lazy var member = planned.delivery.notificationID.description
        func entry(_ key: String, _ limits: [RollingWindows.Limit]) -> RollingWindows.Entry {
            RollingWindows.Entry(key: key, member: member, now: now, limits: limits)
        }
        if let category = planned.delivery.policy.category {
            let caps = frequencyCaps.limits(for: category)
            if !caps.isEmpty {
                let key = RollingWindows.frequencyCapKey(app: planned.app, user: planned.user, token: planned.delivery.token,
                                                         category: category)
                counted.append(entry(key, caps), of: index, for: .frequencyCap)
            }
        }
        if planned.delivery.pushType == .background, policies.backgroundBudget.enabled {
            let limit = Self.limit(policies.backgroundBudget.limit)
            let key = RollingWindows.backgroundBudgetKey(token: planned.delivery.token)
            counted.append(entry(key, [limit]), of: index, for: .backgroundBudget)
        }
        if planned.delivery.pushType == .liveActivity, planned.delivery.policy.liveActivityEvent == .update,
           planned.delivery.priority == .immediate, policies.liveActivityBudget.enabled {
            let limit = Self.limit(policies.liveActivityBudget.limit)
            let key = RollingWindows.liveActivityBudgetKey(token: planned.delivery.token)
            counted.append(entry(key, [limit]), of: index, for: .liveActivityBudget)
        }
    }

    private static func limit(_ limit: DeliveryPolicies.RollingLimit) -> RollingWindows.Limit {
        RollingWindows.Limit(limit: limit.limit, windowMilliseconds: Int64(limit.window.wholeMilliseconds))
    }
}
