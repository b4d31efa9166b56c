/**
 * The gateway's release, as `/health` reports it. Kept in step with package.json's `version` and the
 * newest release in CHANGELOG.md by a test, so the three never disagree; a constant rather than a read
 * of package.json, so that no bundle carries the package file or reads the disk at init.
 */
export const gatewayVersion = '0.2.0';
