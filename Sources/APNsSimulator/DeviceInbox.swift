/// What the devices hold: accepted notifications, oldest first, where a notification with a
/// collapse id replaces the earlier one with that id on the same device (as iOS does).
/// Bounded: beyond ``capacity`` the oldest are dropped.
///
/// Stored as a queue in arrival order, not a dictionary: recording is an append, dropping the
/// oldest advances a head index, and a replaced notification leaves an empty slot behind.
struct DeviceInbox {
    let capacity: Int
    /// Slot `i` holds the notification with sequence number `firstSequence + i`; nil once it was
    /// replaced through its collapse id or dropped.
    private var slots: [DeliveredNotification?] = []
    private var firstSequence = 0
    /// Index of the oldest slot not yet dropped; the slots before it are reclaimed in bulk.
    private var head = 0
    /// Notifications held (slots from `head` on that are not nil).
    private var count = 0
    /// "<token or channel>\n<collapse id>" → sequence of the notification holding that slot.
    private var collapseSlots: [String: Int] = [:]

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Adds a notification; returns the one it replaced through its collapse id, if any.
    @discardableResult
    mutating func record(_ notification: DeliveredNotification) -> DeliveredNotification? {
        let sequence = firstSequence + slots.count
        var replaced: DeliveredNotification?
        if let key = Self.collapseKey(notification), let previous = collapseSlots.updateValue(sequence, forKey: key) {
            replaced = take(sequence: previous)
        }
        slots.append(notification)
        count += 1
        while count > capacity { dropOldest() }
        return replaced
    }

    /// The notifications held, oldest first; only those of `token` when it is given.
    func list(token: String? = nil) -> [DeliveredNotification] {
        slots[head...].compactMap { notification in
            token == nil || notification?.token == token ? notification : nil
        }
    }

    mutating func removeAll() {
        firstSequence += slots.count
        slots.removeAll()
        head = 0
        count = 0
        collapseSlots.removeAll()
    }

    private mutating func take(sequence: Int) -> DeliveredNotification? {
        let index = sequence - firstSequence
        guard index >= head, index < slots.count, let notification = slots[index] else { return nil }
        slots[index] = nil
        count -= 1
        return notification
    }

    private mutating func dropOldest() {
        let sequence = firstSequence + head
        if let evicted = take(sequence: sequence), let key = Self.collapseKey(evicted), collapseSlots[key] == sequence {
            collapseSlots.removeValue(forKey: key)
        }
        head += 1
        // Reclaim the dropped slots once they are half the array: amortised O(1) per notification.
        if head >= 1024, head * 2 >= slots.count {
            slots.removeFirst(head)
            firstSequence += head
            head = 0
        }
    }

    private static func collapseKey(_ notification: DeliveredNotification) -> String? {
        guard let collapseID = notification.collapseID else { return nil }
        return (notification.token ?? notification.channelID ?? "") + "\n" + collapseID
    }
}
