/// The checkout's `git describe` at build time ("" outside git), from the GitCommit
/// plugin's generated file; BuildInfo prefers $NEXUS_COMMIT when make sets it.
public enum GitAtBuild {}
