// swift-tools-version:6.0
// nexusctl and its libraries. No package dependencies, by the owner's choice:
// everything here builds with the toolchain alone.
import PackageDescription

// The git commit `--version` reports when make sets $NEXUS_COMMIT (`make dist`, `make install`).
// Only CNexusBuild's one C file sees it, so a new commit rebuilds that file and relinks, no
// more. Without it, the GitCommit plugin reads the checkout's commit at every build (NexusBuild).
let commit = Context.environment["NEXUS_COMMIT"] ?? ""

let package = Package(
    name: "nexus",
    products: [
        // What nexusd and nexusctl share: the wire types, limits, timestamps, JSON, identity rules.
        .library(name: "NexusWire", targets: ["NexusWire"]),
        .library(name: "NexusCore", targets: ["NexusCore"]),
        .executable(name: "nexusctl", targets: ["nexusctl"]),
    ],
    targets: [
        // The system's OpenSSL for HTTPS and SHA-256 (not a package dependency): libssl-dev's
        // headers at build time, libssl3 loaded at run time by the first command that needs it.
        .target(name: "COpenSSL"),
        // The C library (Glibc, Musl or Darwin), imported in one place.
        .target(name: "LibC"),
        // The git commit `--version` reports (see `commit` above).
        .target(name: "CNexusBuild", cSettings: [.define("NEXUS_COMMIT", to: "\"\(commit)\"")]),
        .plugin(name: "GitCommit", capability: .buildTool(), path: "Sources/GitCommit"),
        .target(name: "NexusBuild", plugins: ["GitCommit"]),
        .target(name: "NexusWire", dependencies: ["LibC", "CNexusBuild", "NexusBuild"]),
        .target(name: "NexusCore", dependencies: ["NexusWire", "COpenSSL", "LibC"]),
        .target(name: "NexusCLI", dependencies: ["NexusCore", "LibC"]),
        // glibc's malloc set for short-lived commands, from nexusctl's first line.
        .target(name: "CMallocTuning"),
        .executableTarget(name: "nexusctl", dependencies: ["NexusCLI", "LibC", "CMallocTuning"]),
        // The test runner ignores SIGPIPE from its first instruction (ignore_sigpipe.c).
        .target(name: "TestProcess", path: "Tests/TestProcess"),
        .testTarget(name: "NexusCoreTests", dependencies: ["NexusCore", "TestProcess"]),
        .testTarget(name: "NexusCLITests", dependencies: ["NexusCLI", "NexusCore", "TestProcess"]),
        .testTarget(name: "IntegrationTests", dependencies: ["NexusCore", "TestProcess"]),
    ]
)
