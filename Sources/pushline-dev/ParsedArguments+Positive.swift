import CLI

extension ParsedArguments {
    /// The value of `name` as an integer of at least 1, or `value` when the option is absent.
    func positiveInteger(_ name: String, default value: Int) throws(UsageError) -> Int {
        guard let given = try optionalInteger(name) else { return value }
        guard given > 0 else { throw UsageError(message: "\(name) must be at least 1, got \(given)") }
        return Int(given)
    }
}
