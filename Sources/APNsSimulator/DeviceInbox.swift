/// What the devices hold: accepted notifications, oldest first, where a notification with a
/// collapse id replaces the earlier one with that id on the same device (as iOS does).
/// Bounded: beyond ``capacity`` the oldest are dropped.
struct DeviceInbox {
    let capacity: Int
    private var notifications: [Int: DeliveredNotification] = [:]
    /// "<token or channel>\n<collapse id>" → sequence of the notification holding that slot.
    private var collapseSlots: [String: Int] = [:]
    private var nextSequence = 0
    private var oldestSequence = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Adds a notification; returns the one it replaced through its collapse id, if any.
    @discardableResult
    mutating func record(_ notification: DeliveredNotification) -> DeliveredNotification? {
        let sequence = nextSequence
        nextSequence += 1
        var replaced: DeliveredNotification?
        if let key = Self.collapseKey(notification) {
            if let previous = collapseSlots.updateValue(sequence, forKey: key) {
                replaced = notifications.removeValue(forKey: previous)
            }
        }
        notifications[sequence] = notification
        while notifications.count > capacity {
            if let evicted = notifications.removeValue(forKey: oldestSequence), let key = Self.collapseKey(evicted),
               collapseSlots[key] == oldestSequence {
                collapseSlots.removeValue(forKey: key)
            }
            oldestSequence += 1
        }
        return replaced
    }

    /// The notifications held, oldest first; only those of `token` when it is given.
    func list(token: String? = nil) -> [DeliveredNotification] {
        notifications.keys.sorted().compactMap { sequence in
            let notification = notifications[sequence]
            return token == nil || notification?.token == token ? notification : nil
        }
    }

    mutating func removeAll() {
        notifications.removeAll()
        collapseSlots.removeAll()
        oldestSequence = nextSequence
    }

    private static func collapseKey(_ notification: DeliveredNotification) -> String? {
        guard let collapseID = notification.collapseID else { return nil }
        return (notification.token ?? notification.channelID ?? "") + "\n" + collapseID
    }
}
