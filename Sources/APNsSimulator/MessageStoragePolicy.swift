/// `message-storage-policy` (spec §6.3), fixed when the channel is created.
enum MessageStoragePolicy: Int64 {
    /// No storage for offline devices; publishing requires `apns-expiration: 0`.
    case noMessageStored = 0
    /// The latest message is kept for up to 8 hours.
    case mostRecentMessageStored = 1
}
