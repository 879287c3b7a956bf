import { outboundFetch } from '../../src/kernel/http/outbound-fetch.js';
import { OutboundPolicy } from '../../src/kernel/http/outbound-policy.js';

/** OUTBOUND_ALLOW for suites whose stub providers and MCP servers listen on loopback. */
export const LOOPBACK_ALLOW = '127.0.0.0/8,::1';

/** The outbound policy those suites run under. */
export const loopbackPolicy = (): OutboundPolicy => OutboundPolicy.fromList(LOOPBACK_ALLOW.split(','));

/** Provider and MCP transport allowed to reach loopback stubs. */
export const loopbackOutbound = () => outboundFetch(loopbackPolicy());
