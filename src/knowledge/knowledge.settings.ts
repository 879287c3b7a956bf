import path from 'node:path';
import { z } from 'zod';
import { flag, list, settings, type SectionsOf } from '../kernel/config/settings.js';

/** The knowledge base: Git repositories cloned, chunked and embedded by `index` jobs (or in process without Redis). */
export const KNOWLEDGE_SETTINGS = settings({
  env: {
    GIT_BASE_URL: z.string().url('a URL such as https://git.example.com or file:///srv/git (a local folder)').default('https://github.com'),
    GIT_TOKEN: z.string().optional(),
    GIT_TIMEOUT_S: z.coerce.number().int().min(1).max(3_600).default(300),
    MAX_FILE_BYTES: z.coerce.number().int().min(1_024).default(1_000_000),
    KB_CHUNK_MAX_CHARS: z.coerce.number().int().min(200).max(20_000).default(1_500),
    KB_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).max(5_000).default(200),
    KB_JOB_WAIT_S: z.coerce.number().int().min(1).default(1_800),
    KB_INDEX_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
    KB_OFFICIAL_REPOS: flag.default(true),
    KB_LOCAL_ROOTS: list.refine((dirs) => dirs.every((dir) => path.isAbsolute(dir)), 'comma-separated absolute folders'),
  },
  problems: (e) => (e.KB_CHUNK_OVERLAP_CHARS >= e.KB_CHUNK_MAX_CHARS ? ['KB_CHUNK_OVERLAP_CHARS must be below KB_CHUNK_MAX_CHARS'] : []),
  read: (e) => ({
    knowledge: {
      gitBaseUrl: e.GIT_BASE_URL.replace(/\/+$/, ''),
      /** Sent as an HTTP header to the Git remote only; never stored or logged. */
      gitToken: e.GIT_TOKEN,
      gitTimeoutMs: e.GIT_TIMEOUT_S * 1_000,
      maxFileBytes: e.MAX_FILE_BYTES,
      chunkMaxChars: e.KB_CHUNK_MAX_CHARS,
      chunkOverlapChars: e.KB_CHUNK_OVERLAP_CHARS,
      /** How long the API, the tools and the CLI wait for an index job. */
      jobWaitMs: e.KB_JOB_WAIT_S * 1_000,
      /** Index jobs at once per worker. */
      indexConcurrency: e.KB_INDEX_CONCURRENCY,
      /** The official repositories are on the list (false: a Git server that does not mirror them). */
      officialRepositories: e.KB_OFFICIAL_REPOS,
      /** Folders under which a local repository (a path or file:// URL) may be added; none by default. Absolute, normalised. */
      localRoots: e.KB_LOCAL_ROOTS.map((dir) => path.resolve(dir)),
    },
  }),
});

/** The knowledge base: Git, chunking and index jobs. */
export type KnowledgeConfig = SectionsOf<typeof KNOWLEDGE_SETTINGS>['knowledge'];
