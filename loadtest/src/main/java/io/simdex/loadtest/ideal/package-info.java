/**
 * {@link io.simdex.loadtest.ideal.IdealIndex}: the four block tables as sorted Java arrays,
 * the upper bound a persisted, paged, concurrent store is measured against.
 */
package io.simdex.loadtest.ideal;
