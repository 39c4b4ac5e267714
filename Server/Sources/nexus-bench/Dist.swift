import BenchSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `make dist`'s artifacts, in $NEXUS_BENCH_DIST (bench.sh passes dist/ when
/// `make dist` has made it): start-up of the static nexusctl beside the dynamic one of this
/// run, interleaved, and the size of each binary and package. NEXUS_BENCH_ONLY=dist.
func distMeasures() {
    guard let dist = ProcessInfo.processInfo.environment["NEXUS_BENCH_DIST"],
          let files = try? FileManager.default.contentsOfDirectory(atPath: dist),
          let tarball = files.first(where: { $0.hasSuffix(".tar.gz") }),
          let deb = files.first(where: { $0.hasSuffix(".deb") })
    else {
        report("dist: static binaries", "skipped: run `make dist` first")
        return
    }
    let unpacked = work + "/dist"
    try? FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
    precondition(reap(spawn("/bin/tar", ["-xzf", dist + "/" + tarball, "-C", unpacked], env: baseEnv)).status == 0, "tar failed")
    let folder = unpacked + "/" + tarball.dropLast(".tar.gz".count)
    let staticCtl = folder + "/bin/nexusctl", staticSrv = folder + "/bin/nexusd"

    // Interleaved rounds, so both see the same load of a shared machine.
    var dynamicTimes: [Double] = [], staticTimes: [Double] = []
    for _ in 0..<10 {
        dynamicTimes += timeCommand(nexusctl, ["--version"], env: baseEnv, runs: 5).ms
        staticTimes += timeCommand(staticCtl, ["--version"], env: baseEnv, runs: 5).ms
    }
    let d = percentile(dynamicTimes, 50), s = percentile(staticTimes, 50)
    report("dist: nexusctl --version, dynamic Swift runtime (median of 50)", ms(d))
    report("dist: nexusctl --version, static Swift runtime (median of 50)", ms(s) + String(format: " (%.2f× dynamic)", s / d))

    func size(_ path: String) -> String {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
    report("dist: size of nexusctl, static / dynamic", size(staticCtl) + " / " + size(nexusctl))
    report("dist: size of nexusd, static / dynamic", size(staticSrv) + " / " + size(nexusd))
    report("dist: size of \(tarball)", size(dist + "/" + tarball))
    report("dist: size of \(deb)", size(dist + "/" + deb))
}
