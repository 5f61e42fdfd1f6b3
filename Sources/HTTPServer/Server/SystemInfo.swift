import CMicroHTTPD

/// Facts about the machine the server runs on.
package enum SystemInfo {
    /// The cores this process may use: its CPU affinity (`taskset`, a container's cpuset), not
    /// every core of the machine, so a pinned server does not start more threads than it has cores.
    package static var usableCores: Int {
        Int(CMicroHTTPD_usableCores())
    }
}
