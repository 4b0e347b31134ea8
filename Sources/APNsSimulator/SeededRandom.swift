/// SplitMix64: a small, fast generator that repeats its sequence for a given seed, so fault
/// injection and jitter are reproducible in tests and benchmark runs. Not for secrets.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A uniform draw from 0 (included) to 1 (excluded).
    mutating func unit() -> Double {
        Double.random(in: 0..<1, using: &self)
    }
}
