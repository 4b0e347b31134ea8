/// The broadcast channels of the simulated environment, per app (bundle id).
struct ChannelStore {
    let limitPerApp: Int
    private var channelsByApp: [String: [String: BroadcastChannel]] = [:]

    init(limitPerApp: Int) {
        self.limitPerApp = limitPerApp
    }

    /// Adds a channel; false when the app already has ``limitPerApp`` channels.
    mutating func add(_ channel: BroadcastChannel, bundleID: String) -> Bool {
        guard channelsByApp[bundleID, default: [:]].count < limitPerApp else { return false }
        channelsByApp[bundleID, default: [:]][channel.id] = channel
        return true
    }

    func channel(_ id: String, bundleID: String) -> BroadcastChannel? {
        channelsByApp[bundleID]?[id]
    }

    /// Deletes a channel; false when the app has no such channel.
    mutating func remove(_ id: String, bundleID: String) -> Bool {
        channelsByApp[bundleID]?.removeValue(forKey: id) != nil
    }

    /// The app's channel ids, sorted so listings are stable.
    func ids(bundleID: String) -> [String] {
        (channelsByApp[bundleID] ?? [:]).keys.sorted()
    }
}
