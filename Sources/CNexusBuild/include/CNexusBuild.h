#ifndef CNEXUSBUILD_H
#define CNEXUSBUILD_H

/// The git commit the binary was built from (see Package.swift), or "" outside git.
const char *nexus_build_commit(void);

#endif
