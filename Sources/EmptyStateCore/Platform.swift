/// A client platform: picks the native symbol of an icon.
package enum Platform: String, Sendable, CaseIterable, Hashable {
    case ios, android, web
}
