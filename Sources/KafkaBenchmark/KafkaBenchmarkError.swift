/// Why a benchmark run could not finish: what it was doing and what went wrong.
public struct KafkaBenchmarkError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
