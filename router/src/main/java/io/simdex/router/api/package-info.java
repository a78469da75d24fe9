/**
 * The public {@code simdex.v1.Simdex} API: validation, collection settings, and the service
 * that turns requests into index calls.
 *
 * <p>Invariants. Every request is validated, and every text fingerprinted, before its first
 * write, so a rejected request changes nothing ({@link io.simdex.router.api.Validation} names the
 * field and the bad value in its INVALID_ARGUMENT). Collection settings are completed and checked
 * once, at creation ({@link io.simdex.router.api.CollectionSettingsRules}), and are fixed after
 * that; the {@link io.simdex.router.api.Catalog} persists them. Nothing here knows whether shards
 * are local or remote: the service sees one {@link io.simdex.router.index.IndexRouter}.
 */
package io.simdex.router.api;
