import APNsCore

/// Fills a template's alert fields for one intent: literal text from the arguments, localization
/// keys checked against the catalog (client mode), or text rendered from the catalog in the
/// resolved locale (server mode).
struct AlertTexts {
    let template: Template
    let app: EnrichmentCatalog.App
    let args: JSONObject
    /// Set in server mode.
    let locale: LocaleResolution?

    func content(_ alert: Template.AlertTemplate) throws(EnrichmentError) -> AlertContent {
        var content = AlertContent()
        try fill(alert.title, text: \.title, key: \.titleLocKey, args: \.titleLocArgs, into: &content)
        try fill(alert.subtitle, text: \.subtitle, key: \.subtitleLocKey, args: \.subtitleLocArgs, into: &content)
        try fill(alert.body, text: \.body, key: \.locKey, args: \.locArgs, into: &content)
        return content
    }

    private func fill(_ field: Template.AlertText?, text: WritableKeyPath<AlertContent, String?>,
                      key: WritableKeyPath<AlertContent, String?>, args argsPath: WritableKeyPath<AlertContent, [String]?>,
                      into content: inout AlertContent) throws(EnrichmentError) {
        switch field {
        case nil:
            return
        case .text(let source)?:
            content[keyPath: text] = try source.render(args)
        case .localized(let catalogKey, let argTemplates)?:
            var rendered: [String] = []
            rendered.reserveCapacity(argTemplates.count)
            for argument in argTemplates { rendered.append(try argument.render(args)) }
            if let locale {
                content[keyPath: text] = try localized(catalogKey, rendered, locale: locale)
            } else {
                guard app.strings.contains(catalogKey) else {
                    throw EnrichmentError(.missingLocalization,
                                          "template \(template.name) sends loc-key \"\(catalogKey)\", which is not in the app's catalog; the device would show the raw key")
                }
                content[keyPath: key] = catalogKey
                content[keyPath: argsPath] = rendered.isEmpty ? nil : rendered
            }
        }
    }

    /// The key's text in the resolved locale, else in the app's default locale.
    private func localized(_ key: String, _ arguments: [String], locale: LocaleResolution) throws(EnrichmentError) -> String {
        for candidate in [locale.resolved, app.defaultLocale] {
            if let string = app.strings.lookup(key, locale: candidate) {
                return try string.render(arguments, locale: candidate)
            }
        }
        throw EnrichmentError(.missingLocalization,
                              "template \(template.name) uses key \"\(key)\", which is in neither \(locale.resolved) nor the default locale \(app.defaultLocale)")
    }
}
