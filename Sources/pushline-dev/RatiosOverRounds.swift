/// The ratios `pushline-dev bench e2e` takes in each of its `--rounds`, summed up once all rounds
/// have run. On a shared machine one round's ratio swings either way (docs/BENCHMARKS.md has
/// rounds of one command from 0.75 to 1.21), so a goal is judged on all rounds together, by a rule
/// fixed before the figures: **met when the median round meets it and at least two thirds of the
/// rounds do**.
struct RatiosOverRounds {
    /// What a ratio is held to.
    enum Goal {
        case atLeast(Double)
        case atMost(Double)

        func isMet(by ratio: Double) -> Bool {
            switch self {
            case .atLeast(let bound): ratio >= bound
            case .atMost(let bound): ratio <= bound
            }
        }

        var text: String {
            switch self {
            case .atLeast(let bound): "≥ \(bound)"
            case .atMost(let bound): "≤ \(bound)"
            }
        }
    }

    /// One ratio over the rounds: its name as the round lines print it, its goal if it has one, and
    /// its value in each round whose outcomes were complete (the others are not judged). Never
    /// empty: a series is made with its first value.
    struct Series {
        let name: String
        let goal: Goal?
        fileprivate(set) var values: [Double] = []

        /// The middle value, or the mean of the two middle ones.
        var median: Double {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }

        var roundsMeetingGoal: Int {
            guard let goal else { return 0 }
            return values.filter(goal.isMet(by:)).count
        }

        /// Whether the median round and at least two thirds of the rounds meet the goal.
        var isGoalMet: Bool {
            guard let goal else { return false }
            return goal.isMet(by: median) && 3 * roundsMeetingGoal >= 2 * values.count
        }

        /// `over 5 rounds, outcomes/s, sealed / tokens: median 1.07 (0.75 to 1.21); goal ≥ 0.85 in 4
        /// of 5 rounds — met`.
        var summary: String {
            var line = "over \(values.count) rounds, \(name): median " + Self.format(median)
                + " (" + Self.format(values.min()!) + " to " + Self.format(values.max()!) + ")"
            if let goal {
                line += "; goal \(goal.text) in \(roundsMeetingGoal) of \(values.count) rounds — "
                    + (isGoalMet ? "met" : "not met") + " (median and two thirds of the rounds)"
            }
            return line
        }

        private static func format(_ value: Double) -> String {
            String(format: "%.2f", value)
        }
    }

    private(set) var series: [Series] = []

    /// Notes `value`, one round's value of the ratio `name`; `judged` false (a run's outcomes not
    /// complete) leaves the round out.
    mutating func add(_ value: Double, to name: String, goal: Goal?, judged: Bool = true) {
        guard judged else { return }
        if let index = series.firstIndex(where: { $0.name == name }) {
            series[index].values.append(value)
        } else {
            series.append(Series(name: name, goal: goal, values: [value]))
        }
    }

    /// Each ratio's summary, when there was more than one round.
    func print(rounds: Int) {
        guard rounds > 1 else { return }
        for ratio in series { Swift.print(ratio.summary) }
    }
}
