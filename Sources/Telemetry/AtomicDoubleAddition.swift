import Synchronization

extension Atomic where Value == Double {
    /// Adds `amount` with a compare-and-exchange loop: the hardware has no floating-point add.
    func add(_ amount: Double) {
        var expected = load(ordering: .relaxed)
        while true {
            let (exchanged, actual) = compareExchange(expected: expected, desired: expected + amount, ordering: .relaxed)
            if exchanged { return }
            expected = actual
        }
    }
}
