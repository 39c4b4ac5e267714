#ifndef CNEXUSBUILD_H
#define CNEXUSBUILD_H

/// $NEXUS_COMMIT at build time, which make sets; "" for a plain `swift build`.
const char *nexus_build_commit(void);

#endif
