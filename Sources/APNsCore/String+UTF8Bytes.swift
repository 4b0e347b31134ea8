extension String {
    /// Whether every UTF-8 byte passes `test`. Native strings lend their contiguous storage, so this
    /// is a pointer loop rather than `String.UTF8View` iteration: the simulator runs such checks over
    /// device tokens and header values on every request.
    package func allUTF8Bytes(satisfy test: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? utf8.allSatisfy(test)
    }
}
