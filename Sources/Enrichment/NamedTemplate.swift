/// The template an intent names, found in the catalog once per intent, with what composing it needs
/// from there: its app (strings, default locale) and its payload skeleton, if it has one.
struct NamedTemplate {
    let app: EnrichmentCatalog.App
    let template: Template
    /// Nil when the template's payloads are always composed the general way.
    let skeleton: PayloadSkeleton?
}
