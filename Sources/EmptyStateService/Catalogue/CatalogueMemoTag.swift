import EmptyStateCore
import HTTPServer

/// What a remembered client answer was made from, so that a publication forgets exactly the
/// answers it may have changed (`ResponseMemo.invalidate(tags:)`).
///
/// Each case is its own kind of value: a template's name cannot spell the bundles' tag or an app
/// platform's, whatever characters template ids allow now or later.
package enum CatalogueMemoTag: MemoTag {
    /// The answers asked by this template id or alias (`/v1/templates/{id}`, its web HTML).
    case template(String)
    /// The bundles (`/v1/templates`): made of every template.
    case bundles
    /// A platform's app-status answers: made of its policy and the update templates.
    case appStatus(Platform)
    /// The web component and stylesheet: compiled in, unchanged while the process runs.
    case webAssets

    /// Every platform's app-status tag: what a change of an update template forgets.
    static let everyAppStatus = Set(Platform.allCases.map(CatalogueMemoTag.appStatus))
}

extension CatalogueState {
    /// What remembers answers made from the snapshot before a swap must forget (`onSwap`).
    package enum Invalidation: Sendable, Equatable {
        /// Every answer (the snapshot was rebuilt).
        case everything
        /// The answers of these tags.
        case tags(Set<CatalogueMemoTag>)

        /// What changed when the templates with these names (ids and aliases) changed: their own
        /// answers and the bundles, which are made of every template.
        static func templates(_ names: some Sequence<String>) -> Set<CatalogueMemoTag> {
            Set(names.map(CatalogueMemoTag.template)).union([.bundles])
        }
    }
}

extension ResponseMemo {
    /// Forgets what `invalidation` names.
    package func invalidate(_ invalidation: CatalogueState.Invalidation) {
        switch invalidation {
        case .everything: invalidate()
        case .tags(let tags): invalidate(tags: tags)
        }
    }
}
