extension Logger {
    /// How severe an event is, least severe first (swift-log's levels and names).
    public enum Level: String, Sendable, CaseIterable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.severity < rhs.severity
        }

        private var severity: Int { Level.allCases.firstIndex(of: self) ?? 0 }
    }
}
