// The C library, imported once for every file of nexusctl: `import LibC` instead of an
// `#if canImport(Glibc)` block per file. Glibc on Debian, Musl for a static Linux SDK
// build, Darwin on a Mac.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// Installs `handler` for each of `signals` by sigaction(2), with `blocking` held off while it
/// runs: the one place that knows how each C library names the handler's field.
public func setSignalHandler(_ handler: @convention(c) (Int32) -> Void, for signals: [Int32], blocking: [Int32] = [], flags: Int32) {
    for s in signals {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        for other in blocking { sigaddset(&action.sa_mask, other) }
        action.sa_flags = flags
        sigaction(s, &action, nil)
    }
}
