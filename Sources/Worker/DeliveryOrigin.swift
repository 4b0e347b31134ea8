import Enrichment

/// What a delivery's records need of its intent and recipient, and no more: kept from planning to
/// recording (``PlannedDelivery``), and carried by a release record (``ReleaseRecord/Planned``).
/// A copy of the whole ``Intent`` (its arguments, overrides, custom keys — a dozen references) per
/// delivery, freed on another thread after recording, showed up in profiles; the rest of the
/// intent is freed where it was decoded, once planning is done.
struct DeliveryOrigin: Sendable, Equatable {
    var intentID: String
    var app: String
    /// The template the intent names, if it names one.
    var template: String?
    /// `created_at`, UNIX milliseconds.
    var createdAt: Int64?
    /// `dedupe_window`, seconds.
    var dedupeWindow: Int64?
    var user: String?
    /// The recipient's profile language (nil for explicit tokens, or a profile without one).
    var profileLocale: String?
    /// The recipient's time zone (IANA) from its profile, for quiet hours; nil: the pipeline's.
    var profileTimeZone: String?
}

extension DeliveryOrigin {
    /// The origin of `intent`'s delivery to `device`, addressed through `user` if it was.
    init(intent: borrowing Intent, user: String?, device: borrowing RecipientDevice) {
        self.init(intentID: intent.id, app: intent.app, template: intent.templateName, createdAt: intent.createdAt,
                  dedupeWindow: intent.dedupeWindow, user: user, profileLocale: device.profileLocale,
                  profileTimeZone: device.profileTimeZone)
    }
}
