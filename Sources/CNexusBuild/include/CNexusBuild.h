#ifndef CNEXUSBUILD_H
#define CNEXUSBUILD_H

/// The git commit the binary was built from ($NEXUS_COMMIT at build time, which
/// `make dist` and `make install` set), or "" for a plain `swift build`.
const char *nexus_build_commit(void);

#endif
