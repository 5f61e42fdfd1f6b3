#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Facts about the machine the server runs on.
package enum SystemInfo {
    package static var onlineCores: Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
