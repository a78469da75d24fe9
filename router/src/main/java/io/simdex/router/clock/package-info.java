/**
 * Cluster time: the clock a router reads to pick retention generations and URL expiry. It is
 * the median of the nodes' clocks ({@link io.simdex.router.clock.ClusterClock}), never the
 * router's own, so any number of routers agree on generations whatever their hosts' clocks say,
 * and a minority of nodes with a wrong clock is outvoted. When the nodes that answer do not
 * agree within a bound, requests that need the time are refused rather than served by a guess
 * ({@link io.simdex.router.clock.ClockAgreement}).
 */
package io.simdex.router.clock;
