/** The loopback ports support/loopback-guard.mjs keeps the suite's connections from. */
export declare const GUARDED_PORTS: number[];
