import EmptyStateCore
import EmptyStateStore
import EmptyStateWeb
import JSONCoding
import Synchronization

/// What `GET /v1/app-status` answers from, as part of a `CatalogueSnapshot`: each platform's
/// policy, and the answers made from it and the three update templates.
///
/// An answer's body depends on the state, the platform's policy, and the state's template in one
/// locale, never on the app's version: each is rendered on its first request and kept, so the
/// request path decides (a few comparisons) and looks the answer up. A policy change makes a new
/// book sharing the other platforms' answers; a change of an update template makes a new book
/// sharing the policies. Both cost the change, not the catalogue.
package final class AppStatusBook: Sendable {
    /// By `Platform.index`.
    private let platforms: [PlatformAnswers]

    /// The answers of one platform.
    private final class PlatformAnswers: Sendable {
        let platform: Platform
        let stored: StoredAppPolicy?
        /// `RolloutBucket.salt` of the policy's latest version, made once.
        let rolloutSalt: [UInt8]
        /// `ok` has no template: one answer for every locale.
        let ok: CatalogueSnapshot.Representation
        /// `updateAvailable`, `updateRequired`, `osUpdateRequired`, in `AppStatus.allCases` order.
        let states: [StateAnswers]

        init(platform: Platform, stored: StoredAppPolicy?, template: (String) -> CatalogueSnapshot.Entry?) {
            self.platform = platform
            self.stored = stored
            rolloutSalt = stored.map { RolloutBucket.salt($0.policy.latestVersion) } ?? []
            ok = CatalogueSnapshot.Representation(
                bytes: AppStatusBook.body(state: .ok, policy: stored?.policy, template: nil),
                contentLanguage: ""
            )
            states = AppStatus.allCases.dropFirst().map { state in
                StateAnswers(state: state, entry: state.templateID.flatMap(template))
            }
        }
    }

    /// The answers in one state: one per locale of its template, rendered on first request.
    private final class StateAnswers: Sendable {
        let state: AppStatus
        /// `nil` when the catalogue has no such template (ops deleted it): `template` is null.
        let entry: CatalogueSnapshot.Entry?
        private let slots: Mutex<[CatalogueSnapshot.Representation?]>

        init(state: AppStatus, entry: CatalogueSnapshot.Entry?) {
            self.state = state
            self.entry = entry
            slots = Mutex(Array(repeating: nil, count: max(1, entry?.locales.tags.count ?? 1)))
        }

        func representation(
            preferences: [LanguagePreference],
            platform: Platform,
            policy: AppPolicy?
        ) -> CatalogueSnapshot.Representation {
            guard let entry else {
                return slots.withLock { slots in
                    if let made = slots[0] { return made }
                    let made = CatalogueSnapshot.Representation(
                        bytes: AppStatusBook.body(state: state, policy: policy, template: nil),
                        contentLanguage: ""
                    )
                    slots[0] = made
                    return made
                }
            }
            let locale = entry.locales.resolve(preferences)
            let index = entry.locales.tags.firstIndex(of: locale) ?? 0
            return slots.withLock { slots in
                if let made = slots[index] { return made }
                let (bytes, language) = AppStatusBook.render(
                    state: state,
                    policy: policy,
                    template: entry.template,
                    revision: entry.revision,
                    locale: locale,
                    platform: platform,
                    parameters: [:]
                )
                let made = CatalogueSnapshot.Representation(bytes: bytes, contentLanguage: language)
                slots[index] = made
                return made
            }
        }
    }

    private init(platforms: [PlatformAnswers]) {
        self.platforms = platforms
    }

    /// A book of `policies`, answering with the templates `template` finds by id.
    convenience init(policies: [StoredAppPolicy], template: (String) -> CatalogueSnapshot.Entry?) {
        self.init(
            platforms: Platform.allCases.map { platform in
                PlatformAnswers(
                    platform: platform,
                    stored: policies.first { $0.policy.platform == platform },
                    template: template
                )
            }
        )
    }

    /// This book with one platform's policy replaced; the other platforms keep their answers.
    func replacing(_ stored: StoredAppPolicy, template: (String) -> CatalogueSnapshot.Entry?) -> AppStatusBook {
        var platforms = self.platforms
        let platform = stored.policy.platform
        platforms[platform.index] = PlatformAnswers(platform: platform, stored: stored, template: template)
        return AppStatusBook(platforms: platforms)
    }

    /// This book answering with the templates `template` finds now (an update template changed).
    func reloadingTemplates(_ template: (String) -> CatalogueSnapshot.Entry?) -> AppStatusBook {
        AppStatusBook(
            platforms: platforms.map { PlatformAnswers(platform: $0.platform, stored: $0.stored, template: template) }
        )
    }

    /// Every stored policy.
    var policies: [StoredAppPolicy] { platforms.compactMap(\.stored) }

    /// The policy served for `platform`, if any.
    package func policy(for platform: Platform) -> StoredAppPolicy? { platforms[platform.index].stored }

    /// The rollout bucket of `instanceID` under `platform`'s policy (`RolloutBucket`).
    package func bucket(of instanceID: String, platform: Platform) -> Int {
        RolloutBucket.of(instanceID: instanceID, salt: platforms[platform.index].rolloutSalt)
    }

    /// The answer in `state` for `platform` in the locale `preferences` negotiate.
    package func representation(
        _ state: AppStatus,
        platform: Platform,
        preferences: [LanguagePreference]
    ) -> CatalogueSnapshot.Representation {
        let answers = platforms[platform.index]
        guard state != .ok else { return answers.ok }
        let slot = answers.states[AppStatus.allCases.firstIndex(of: state)! - 1]
        return slot.representation(preferences: preferences, platform: platform, policy: answers.stored?.policy)
    }

    /// The answer with placeholder values: rendered for one request.
    package func personalized(
        _ state: AppStatus,
        platform: Platform,
        preferences: [LanguagePreference],
        parameters: [String: String]
    ) -> CatalogueSnapshot.Representation {
        let answers = platforms[platform.index]
        guard state != .ok, let entry = answers.states[AppStatus.allCases.firstIndex(of: state)! - 1].entry else {
            return representation(state, platform: platform, preferences: preferences)
        }
        let (bytes, language) = Self.render(
            state: state,
            policy: answers.stored?.policy,
            template: entry.template,
            revision: entry.revision,
            locale: entry.locales.resolve(preferences),
            platform: platform,
            parameters: parameters
        )
        return CatalogueSnapshot.Representation(bytes: bytes, contentLanguage: language)
    }

    // MARK: - Templates

    /// The ids of the templates answers are made of.
    static let templateIDs = Set(AppStatus.allCases.compactMap(\.templateID))

    // MARK: - Rendering

    /// `template` in `locale` with its `openStore` actions pointing at the policy's store URL,
    /// inside the answer's body. The template carries its store `revision`, as
    /// `GET /v1/templates/{id}` writes it: the app reports it with the events of what it showed.
    private static func render(
        state: AppStatus,
        policy: AppPolicy?,
        template: Template,
        revision: Int,
        locale: String,
        platform: Platform,
        parameters: [String: String]
    ) -> (bytes: [UInt8], contentLanguage: String) {
        var template = template
        if let policy {
            for index in template.actions.indices where template.actions[index].kind == .openStore {
                template.actions[index].target = policy.storeURL
            }
        }
        let copy = TemplateRenderer.copy(of: template, in: locale)
        let rendered = TemplateRenderer.render(
            template,
            copy: copy,
            platform: platform,
            parameters: parameters,
            revision: revision,
            icons: IconSet.lucide
        )
        return (body(state: state, policy: policy, template: rendered), copy.locale)
    }

    /// `{"state", "storeUrl", "askAgainAfterSeconds", "minimumVersion", "latestVersion", "template"}`.
    static func body(state: AppStatus, policy: AppPolicy?, template: [UInt8]?) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + (template?.count ?? 0))
        writer.beginObject()
        writer.member("state", state.rawValue)
        writer.key("storeUrl")
        if let policy, state == .updateAvailable || state == .updateRequired {
            writer.string(policy.storeURL)
        } else {
            writer.null()
        }
        writer.key("askAgainAfterSeconds")
        if let policy, state == .updateAvailable { writer.int(policy.askAgainAfterSeconds) } else { writer.null() }
        writer.key("minimumVersion")
        if let policy { writer.string(policy.minimumVersion.description) } else { writer.null() }
        writer.key("latestVersion")
        if let policy { writer.string(policy.latestVersion.description) } else { writer.null() }
        writer.key("template")
        if let template { writer.raw(template) } else { writer.null() }
        writer.endObject()
        return writer.bytes
    }
}
