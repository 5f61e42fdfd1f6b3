import CAssets
import EmptyStateCore

/// A file the service serves to browsers, compiled into the binary (`CAssets`).
package struct WebAsset: Sendable {
    /// The stable file name (`empty-state.css`), for pages that cannot know the hash.
    package let name: String
    package let contentType: String
    package let bytes: [UInt8]
    /// `ContentHash` of the bytes: the ETag, and the part of `hashedName` that changes with them.
    package let hash: String

    init(name: String, contentType: String, bytes: [UInt8]) {
        self.name = name
        self.contentType = contentType
        self.bytes = bytes
        hash = ContentHash.hex(bytes)
    }

    /// `empty-state.<hash>.css`: a name whose bytes never change, cached for a year.
    package var hashedName: String {
        guard let dot = name.lastIndex(of: ".") else { return name + "." + hash }
        return name[..<dot] + "." + hash + name[dot...]
    }

    fileprivate static func embedded(
        _ name: String,
        _ contentType: String,
        _ accessor: (UnsafeMutablePointer<Int>) -> UnsafePointer<UInt8>?
    ) -> WebAsset {
        var count = 0
        let pointer = accessor(&count)
        return WebAsset(
            name: name,
            contentType: contentType,
            bytes: Array(UnsafeBufferPointer(start: pointer, count: count))
        )
    }
}

/// The web assets: the stylesheet every rendering uses and the `<empty-state>` component.
package enum WebAssets {
    /// The path the assets are served under (`<prefix><name>` and `<prefix><hashedName>`).
    package static let pathPrefix = "/v1/web/assets/"

    package static let stylesheet = WebAsset.embedded(
        "empty-state.css",
        "text/css; charset=utf-8",
        { CAssets_emptyStateCSS($0) }
    )

    package static let component = WebAsset.embedded(
        "empty-state.js",
        "text/javascript; charset=utf-8",
        { CAssets_emptyStateJS($0) }
    )

    package static let all = [stylesheet, component]

    /// The asset a file name names, and whether it was the hashed name.
    package static func asset(named name: String) -> (asset: WebAsset, hashed: Bool)? {
        for asset in all {
            if name == asset.name { return (asset, false) }
            if name == asset.hashedName { return (asset, true) }
        }
        return nil
    }

    /// The stylesheet's immutable URL path, for the pages the service renders.
    package static var stylesheetPath: String { pathPrefix + stylesheet.hashedName }
}
