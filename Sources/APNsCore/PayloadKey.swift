/// The keys of an APNs payload (spec §4.2, §4.3), in one place for the builder and the validator.
enum PayloadKey {
    static let aps = "aps"

    // `aps`
    static let alert = "alert"
    static let badge = "badge"
    static let sound = "sound"
    static let threadID = "thread-id"
    static let category = "category"
    static let contentAvailable = "content-available"
    static let mutableContent = "mutable-content"
    static let targetContentID = "target-content-id"
    static let interruptionLevel = "interruption-level"
    static let relevanceScore = "relevance-score"
    static let filterCriteria = "filter-criteria"
    static let timestamp = "timestamp"
    static let event = "event"
    static let contentState = "content-state"
    static let staleDate = "stale-date"
    static let dismissalDate = "dismissal-date"
    static let attributesType = "attributes-type"
    static let attributes = "attributes"
    static let inputPushToken = "input-push-token"
    static let inputPushChannel = "input-push-channel"

    // `alert` dictionary
    static let title = "title"
    static let subtitle = "subtitle"
    static let body = "body"
    static let launchImage = "launch-image"
    static let titleLocKey = "title-loc-key"
    static let titleLocArgs = "title-loc-args"
    static let subtitleLocKey = "subtitle-loc-key"
    static let subtitleLocArgs = "subtitle-loc-args"
    static let locKey = "loc-key"
    static let locArgs = "loc-args"

    // critical `sound` dictionary
    static let critical = "critical"
    static let name = "name"
    static let volume = "volume"
}
