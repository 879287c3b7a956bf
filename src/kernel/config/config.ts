import path from 'node:path';
import { z } from 'zod';
import { OutboundPolicy } from '../http/outbound-policy.js';
import { isHost, isProxyList, unwritableFolder } from './setting-checks.js';
import { flag, list, port, settings, type SectionsOf } from './settings.js';

/**
 * The kernel's own settings: Redis, the HTTP server, outbound and secret rules, traces, logging and
 * the data folder. Each component declares its own (`src/<component>/<component>.settings.ts`); the
 * composition reads them all into the whole configuration (`src/roles/config.ts`).
 */

/** The most records one list page holds and one bulk write takes, unless MAX_PAGE_SIZE says otherwise (Nautobot's default). */
export const DEFAULT_MAX_PAGE_SIZE = 1_000;

/**
 * A loopback port of the service's own, not Redis's standard 6379: a Redis that another program
 * runs on this machine is never written to unless REDIS_URL names it.
 */
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6390';

/** A `host:port` address (a Sentinel or a cluster node). */
export interface HostPort {
  host: string;
  port: number;
}

/** Credentials of the data nodes (Sentinel and Cluster; a single Redis takes them from its URL). */
export interface RedisLogin {
  username?: string;
  password?: string;
}

/**
 * Where Redis is: one server (REDIS_URL), a primary found through Sentinels (REDIS_SENTINELS) or
 * a Redis Cluster (REDIS_CLUSTER_NODES, any of its nodes).
 */
export type RedisTopology =
  | { kind: 'single'; url: string }
  | ({ kind: 'sentinel'; sentinels: HostPort[]; name: string; sentinelPassword?: string } & RedisLogin)
  | ({ kind: 'cluster'; nodes: HostPort[] } & RedisLogin);

function hostPort(entry: string): HostPort {
  const at = entry.lastIndexOf(':');
  return { host: entry.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(entry.slice(at + 1)) };
}

function isHostPort(entry: string): boolean {
  const address = hostPort(entry);
  return address.host.length > 0 && port.safeParse(address.port).success;
}

function redisTopology(e: z.output<typeof REDIS_ENV>): RedisTopology {
  const login = {
    ...(e.REDIS_USERNAME ? { username: e.REDIS_USERNAME } : {}),
    ...(e.REDIS_PASSWORD ? { password: e.REDIS_PASSWORD } : {}),
  };
  if (e.REDIS_SENTINELS.length > 0) {
    return {
      kind: 'sentinel',
      sentinels: e.REDIS_SENTINELS.map(hostPort),
      name: e.REDIS_SENTINEL_NAME,
      ...(e.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: e.REDIS_SENTINEL_PASSWORD } : {}),
      ...login,
    };
  }
  if (e.REDIS_CLUSTER_NODES.length > 0) return { kind: 'cluster', nodes: e.REDIS_CLUSTER_NODES.map(hostPort), ...login };
  return { kind: 'single', url: e.REDIS_URL ?? DEFAULT_REDIS_URL };
}

const REDIS_ENV = z.object({
  // Optional here: whether it is set decides where index work runs (see redis.configured).
  REDIS_URL: z.string().url().optional(),
  REDIS_SENTINELS: list.refine((entries) => entries.every(isHostPort), 'comma-separated host:port pairs'),
  REDIS_SENTINEL_NAME: z.string().default('mymaster'),
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  REDIS_CLUSTER_NODES: list.refine((entries) => entries.every(isHostPort), 'comma-separated host:port pairs'),
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_WAIT_REPLICAS: z.coerce.number().int().min(0).max(16).optional(),
  REDIS_WAIT_TIMEOUT_MS: z.coerce.number().int().min(10).max(1_500).default(1_000),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "-" and "_" only')
    .default('aiops'),
  SESSION_REDIS_DB: z.coerce.number().int().min(0).max(15).default(2),
});

/** Where the HTTP server listens; other components read PORT too (the platform is this service's own API on it by default). */
export const HTTP_ENV = {
  HOST: z.string().refine(isHost, 'an IP address or a host name').default('127.0.0.1'),
  PORT: port.default(8080),
};

export const KERNEL_SETTINGS = settings({
  env: {
    ...REDIS_ENV.shape,
    ...HTTP_ENV,
    OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
    OTEL_TRUSTED_PROPAGATION: flag.default(false),
    PUBLIC_URL: z.string().url().optional(),
    ALLOWED_HOSTS: list,
    TRUST_PROXY: list.refine(isProxyList, 'comma-separated addresses, CIDRs, loopback, linklocal or uniquelocal'),
    DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    MAX_PAGE_SIZE: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_MAX_PAGE_SIZE),
    METRICS_PORT: port.optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info'),
    OUTBOUND_ALLOW: list.refine(
      (entries) => entries.every((entry) => OutboundPolicy.isEntry(entry)),
      'comma-separated CIDRs, addresses and host names',
    ),
    SECRET_ENV_ALLOW: list,
    SECRET_FILE_DIRS: list.refine((dirs) => dirs.every((dir) => path.isAbsolute(dir)), 'comma-separated absolute folders'),
    STDIO_COMMANDS_ALLOW: list,
  },
  // Settings renamed to the service's words (a chat's history is its session); the old names still work.
  renamed: { CHECKPOINT_REDIS_DB: 'SESSION_REDIS_DB' },
  problems: (e) => {
    const topologies = [
      e.REDIS_URL && 'REDIS_URL',
      e.REDIS_SENTINELS.length > 0 && 'REDIS_SENTINELS',
      e.REDIS_CLUSTER_NODES.length > 0 && 'REDIS_CLUSTER_NODES',
    ].filter(Boolean);
    return topologies.length > 1
      ? [`${topologies.join(' and ')} are both set: set one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES`]
      : [];
  },
  fileProblems: (given) => {
    const unwritable = unwritableFolder(given.DATA_DIR ?? './data');
    return unwritable ? [`DATA_DIR: ${unwritable}`] : [];
  },
  read: (e) => {
    const topology = redisTopology(e);
    return {
      redis: {
        topology,
        /**
         * REDIS_URL (or REDIS_SENTINELS, or REDIS_CLUSTER_NODES) is set. Servers always use Redis (the
         * default URL when unset); the CLI's `kb` commands and the tool server run index work as
         * `index` jobs only when it is set.
         */
        configured: e.REDIS_URL !== undefined || topology.kind !== 'single',
        keyPrefix: e.REDIS_KEY_PREFIX,
        /** Database of chat sessions (a cluster has only database 0: they share it, under keys of their own). */
        sessionDb: e.SESSION_REDIS_DB,
        /**
         * A stored turn or record write is confirmed only once this many replicas have it (Redis WAIT),
         * within `timeoutMs`; 0: not waited for. Sentinel and Cluster exist to keep a copy on a replica:
         * by default a write waits for one.
         */
        replicaWait: { replicas: e.REDIS_WAIT_REPLICAS ?? (topology.kind === 'single' ? 0 : 1), timeoutMs: e.REDIS_WAIT_TIMEOUT_MS },
      },
      /**
       * OpenTelemetry traces, exported with OTLP over HTTP when an endpoint is set (the other OTEL_*
       * settings are the SDK's). `trustedPropagation`: a caller's trace context is the parent of the
       * request's span, not only a link.
       */
      tracing: {
        ...(e.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
        trustedPropagation: e.OTEL_TRUSTED_PROPAGATION,
      },
      http: {
        host: e.HOST,
        port: e.PORT,
        /** Proxies whose X-Forwarded-For is believed: addresses, CIDRs or `loopback`. */
        trustProxy: e.TRUST_PROXY,
        /** PUBLIC_URL: the API's address as clients reach it, the base of every link an answer carries. */
        ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL.replace(/\/+$/, '') } : {}),
        /** Host names (and host:port) a link may be built on when no PUBLIC_URL is set, besides loopback and HOST. */
        allowedHosts: e.ALLOWED_HOSTS,
        drainDelayMs: e.DRAIN_DELAY_MS,
        shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
        /** The most records one list page holds (`limit=0` asks for this many) and one bulk write takes. */
        maxPageSize: e.MAX_PAGE_SIZE,
        /** Where `aiops worker` serves /metrics (the API serves it on its own port); none when unset. */
        ...(e.METRICS_PORT === undefined ? {} : { metricsPort: e.METRICS_PORT }),
      },
      /**
       * What users short of superuser may still do (README "Security model"): internal destinations,
       * environment variables and folders a secret may read, stdio commands. All empty by default.
       */
      security: {
        outboundAllow: e.OUTBOUND_ALLOW,
        secretEnvAllow: e.SECRET_ENV_ALLOW,
        secretFileDirs: e.SECRET_FILE_DIRS.map((dir) => path.resolve(dir)),
        stdioCommandsAllow: e.STDIO_COMMANDS_ALLOW,
      },
      // A relative DATA_DIR counts from the folder aiops starts in, whatever a part of it runs in later.
      dataDir: path.resolve(e.DATA_DIR),
      logLevel: e.LOG_LEVEL,
    };
  },
});

export type KernelSettings = SectionsOf<typeof KERNEL_SETTINGS>;
