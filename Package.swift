// swift-tools-version:6.0
// nexusctl and its libraries. No package dependencies, by the owner's choice:
// everything here builds with the toolchain alone.
import PackageDescription

// The git commit `--version` reports: `make dist` and `make install` set $NEXUS_COMMIT. Only
// CNexusBuild's one C file sees it, so a new commit rebuilds that file and relinks, no more.
let commit = Context.environment["NEXUS_COMMIT"] ?? ""

let package = Package(
    name: "nexus",
    products: [
        .library(name: "NexusCore", targets: ["NexusCore"]),
        .executable(name: "nexusctl", targets: ["nexusctl"]),
    ],
    targets: [
        // The system's OpenSSL for HTTPS (a system library, not a package dependency):
        // libssl-dev's headers at build time, libssl3 at run time.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        .target(name: "CNexusBuild", cSettings: [.define("NEXUS_COMMIT", to: "\"\(commit)\"")]),
        .target(name: "NexusCore", dependencies: ["COpenSSL", "CNexusBuild"]),
        .target(name: "NexusCLI", dependencies: ["NexusCore"]),
        .executableTarget(name: "nexusctl", dependencies: ["NexusCLI"]),
        .testTarget(name: "NexusCoreTests", dependencies: ["NexusCore"]),
        .testTarget(name: "NexusCLITests", dependencies: ["NexusCLI", "NexusCore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["NexusCore"]),
    ]
)
