import CLI
import Foundation
import Runtime

/// `pushline-dev bench e2e --policies off|on|both` (issue 17): the same workload with the delivery
/// policies off and on, in the same run, so their cost is a ratio of two rates measured together.
enum BenchPolicies: String, CaseIterable {
    /// No policy applies: no intent has a category or deadline, the seeds' budgets are off.
    case off
    /// Every delivery goes through the policy stage's Redis round trip: each intent has a policy
    /// category whose frequency caps (two windows) no recipient reaches, and an `expires_at` (so a
    /// deadline check and an `apns-expiration` header); a default TTL; the seeds' budgets on; three
    /// lanes (every intent in the default, `bulk`: the scheduler and its read-ahead run for each
    /// delivery); quiet hours that hold every category, in a window that is not now (from 6 to 5
    /// hours before the run's start, UTC): each delivery is checked against it and none deferred.
    case on

    /// The pipeline's `policies:` lines.
    var pipelineLines: [String] {
        switch self {
        case .off:
            ["  background_budget: { enabled: false }", "  live_activity_budget: { enabled: false }"]
        case .on:
            ["  ttl: { default: 1d }", "  frequency_caps:", "    rules:",
             "      - { category: bench, limit: 1000000, window: 1h }", "      - { category: bench, limit: 1000000, window: 1d }",
             "  lanes:", "    default: bulk", "    weights: { critical: 8, transactional: 4, bulk: 1 }",
             "  quiet_hours:", "    start: \"\(Self.hourUTC(before: 6))\"", "    end: \"\(Self.hourUTC(before: 5))\"", "    time_zone: UTC"]
        }
    }

    /// `HH:00` in UTC, `hours` before now: the edges of a quiet window that is not in effect now.
    private static func hourUTC(before hours: Int) -> String {
        let hour = (Int(WallClock.millisecondsSinceEpoch() / 1_000) / 3_600 - hours) % 24
        return String(format: "%02d:00", hour)
    }

    /// The fields every intent gets, each followed by a comma.
    var intentFields: String {
        switch self {
        case .off: ""
        case .on: #""policy_category":"bench","expires_at":\#(WallClock.millisecondsSinceEpoch() / 1_000 + 86_400),"#
        }
    }

    /// The modes `--policies` asks for, in the order they run (`both`: off, then on).
    static func modes(_ arguments: ParsedArguments) throws -> [BenchPolicies] {
        switch arguments.optional("--policies") ?? "off" {
        case "both": return [.off, .on]
        case let name:
            guard let mode = BenchPolicies(rawValue: name) else { throw UsageError(message: "--policies is off, on or both, got \"\(name)\"") }
            return [mode]
        }
    }

    /// Per workload measured both ways, the rate with policies on over the rate with them off: in
    /// each of `rounds` rounds (``BenchE2EScale``), the on run over the off run beside it (same
    /// Redis deployment and worker count); then its median over the rounds (``RatiosOverRounds``).
    static func printRatios(_ results: [BenchE2EResult], rounds: Int) {
        var ratios = RatiosOverRounds()
        for (round, runs) in BenchE2EScale.resultsByRound(results, rounds: rounds).enumerated() {
            for on in runs where on.settings.policies == .on {
                guard let off = on.runBeside(in: runs, where: \.policies, is: .off) else { continue }
                let ratio = on.sustained.rate / off.sustained.rate
                let judged = off.isComplete && on.isComplete
                let name = "[\(on.workload.rawValue)] policies on / off"
                Swift.print((rounds > 1 ? "round \(round + 1), " : "")
                            + String(format: "%@: %.2f (%d / %d outcomes/s) — goal %@%@", name,
                                     ratio, Int(on.sustained.rate), Int(off.sustained.rate), rateGoal.text,
                                     judged ? "" : " (outcomes not complete: not judged)"))
                ratios.add(ratio, to: name, goal: rateGoal, judged: judged)
                ratios.addSpeedAdjusted(ratio, of: on, over: off, name: name, goal: rateGoal, round: rounds > 1 ? "round \(round + 1), " : "")
            }
        }
        ratios.print(rounds: rounds)
    }

    /// Issue 17: the rate with the policies on, at least this share of the rate with them off.
    static let rateGoal = RatiosOverRounds.Goal.atLeast(0.85)
}

extension BenchE2EResult {
    /// The workload's name, followed by `off` or `on` when `results` ran with the policies both ways.
    func label(among results: [BenchE2EResult]) -> String {
        guard results.contains(where: { $0.settings.policies != settings.policies }) else { return workload.rawValue }
        return workload.rawValue + " " + settings.policies.rawValue
    }
}
