#include "CNexusBuild.h"

// The value comes from Package.swift's define, so only this file is rebuilt when it changes.
#ifndef NEXUS_COMMIT
#define NEXUS_COMMIT ""
#endif

const char *nexus_build_commit(void) { return NEXUS_COMMIT; }
