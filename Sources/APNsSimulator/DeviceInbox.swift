/// What the devices hold: accepted notifications, oldest first, where a notification with a
/// collapse id replaces the earlier one with that id on the same device (as iOS does).
/// Bounded: beyond ``capacity`` the oldest are dropped.
///
/// Stored as a queue in arrival order, not a dictionary: recording is an append, dropping the
/// oldest advances a head index, and a replaced notification leaves an empty slot behind. A slot
/// holds no heap object of its own: the texts and the body are copied into ``InboxChunks`` (see
/// there why), and a ``DeliveredNotification`` is made again only when the inbox is read.
struct DeviceInbox {
    let capacity: Int
    /// Slot `i` holds the notification with sequence number `firstSequence + i`; nil once it was
    /// replaced through its collapse id or dropped.
    private var slots: [StoredNotification?] = []
    private var bytes = InboxChunks()
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
        slots.append(store(notification, sequence: sequence))
        count += 1
        while count > capacity { dropOldest() }
        return replaced
    }

    /// The notifications held, oldest first; only those of `token` when it is given.
    func list(token: String? = nil) -> [DeliveredNotification] {
        slots[head...].compactMap { stored in
            guard let stored else { return nil }
            let notification = delivered(stored)
            return token == nil || notification.token == token ? notification : nil
        }
    }

    mutating func removeAll() {
        firstSequence += slots.count
        slots.removeAll()
        head = 0
        count = 0
        collapseSlots.removeAll()
        bytes.removeAll()
    }

    private mutating func take(sequence: Int) -> DeliveredNotification? {
        let index = sequence - firstSequence
        guard index >= head, index < slots.count, let stored = slots[index] else { return nil }
        slots[index] = nil
        count -= 1
        return delivered(stored)
    }

    private mutating func dropOldest() {
        let sequence = firstSequence + head
        if let oldest = slots[head] {
            if oldest.collapseID == nil {
                slots[head] = nil
                count -= 1
            } else if let evicted = take(sequence: sequence), let key = Self.collapseKey(evicted), collapseSlots[key] == sequence {
                // Only a notification with a collapse id is made again, to find its key.
                collapseSlots.removeValue(forKey: key)
            }
        }
        head += 1
        bytes.release(before: firstSequence + head)
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

    /// A notification as a slot keeps it: numbers as they are, texts and body copied into the chunks.
    private struct StoredNotification {
        var receivedAt: Int64
        var priority: Int
        var expiration: Int64?
        /// One of the push types' constant names: no heap storage to keep.
        var pushType: String
        /// The chunk holding every span below.
        var chunk: Int
        var token: InboxChunks.Span?
        var channelID: InboxChunks.Span?
        var topic: InboxChunks.Span
        var collapseID: InboxChunks.Span?
        var apnsID: InboxChunks.Span
        var body: InboxChunks.Span
    }

    private mutating func store(_ notification: DeliveredNotification, sequence: Int) -> StoredNotification {
        var token = notification.token
        var channelID = notification.channelID
        var topic = notification.topic
        var collapseID = notification.collapseID
        var apnsID = notification.apnsID
        let byteCount = (token?.utf8.count ?? 0) + (channelID?.utf8.count ?? 0) + topic.utf8.count
            + (collapseID?.utf8.count ?? 0) + apnsID.utf8.count + notification.body.count
        let chunk = bytes.startNotification(byteCount: byteCount, sequence: sequence)
        func copy(_ text: inout String) -> InboxChunks.Span { text.withUTF8 { bytes.append($0) } }
        func copy(_ text: inout String?) -> InboxChunks.Span? {
            guard text != nil else { return nil }
            return text!.withUTF8 { bytes.append($0) }
        }
        return StoredNotification(
            receivedAt: notification.receivedAt, priority: notification.priority, expiration: notification.expiration,
            pushType: notification.pushType, chunk: chunk, token: copy(&token), channelID: copy(&channelID),
            topic: copy(&topic), collapseID: copy(&collapseID), apnsID: copy(&apnsID),
            body: notification.body.withUnsafeBufferPointer { bytes.append($0) }
        )
    }

    private func delivered(_ stored: StoredNotification) -> DeliveredNotification {
        func text(_ span: InboxChunks.Span) -> String {
            bytes.withBytes(span, inChunk: stored.chunk) { String(decoding: $0, as: UTF8.self) }
        }
        return DeliveredNotification(
            receivedAt: stored.receivedAt, token: stored.token.map(text), channelID: stored.channelID.map(text),
            topic: text(stored.topic), pushType: stored.pushType, priority: stored.priority,
            expirationSeconds: stored.expiration, collapseID: stored.collapseID.map(text), apnsID: text(stored.apnsID),
            body: bytes.withBytes(stored.body, inChunk: stored.chunk) { Array($0) }
        )
    }
}
