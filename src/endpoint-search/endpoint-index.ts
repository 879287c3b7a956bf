import { createHash } from 'node:crypto';
import type { Embedder } from '../embeddings/embedder.port.js';
import { UnavailableError } from '../kernel/errors.js';
import type { Logger } from '../kernel/logging/logger.js';
import { collectionName, pointId } from '../embeddings/point-id.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import { endpointEmbeddingText, endpointHash, parseDescription, type EndpointDocument } from './endpoint-document.js';
import { endpointPurpose } from './endpoint-shape.js';
import { EndpointSearch, type DenseScorer, type ScoredEndpoint } from './endpoint-search.js';
import { OperationDescriber, type DescribeOptions, type OperationSchema } from './operation-schema.js';

export interface EndpointIndexDeps {
  /** Fetches the platform's OpenAPI/Swagger description (parsed JSON). */
  fetchDescription: () => Promise<unknown>;
  /** Identifies the platform in collection names (its base URL). */
  platform: string;
  /** Dense retrieval; without it, or when its model cannot load, search is lexical only. */
  dense?: { embedder: Embedder; store: VectorStore };
  logger: Logger;
}

export type SearchMode = 'hybrid' | 'lexical';

export interface EndpointIndexState {
  status: 'starting' | 'ready' | 'failed';
  endpoints: number;
  mode: SearchMode;
  /** Why dense retrieval is off, when it is. */
  lexicalReason?: string;
  /** The last build or refresh error. */
  error?: string;
  descriptionHash?: string;
  builtAt?: string;
}

export interface RefreshResult {
  endpointsIndexed: number;
  embedded: number;
  removed: number;
  unchanged: boolean;
  timeTakenMs: number;
  mode: SearchMode;
}

export interface SearchOutcome {
  results: ScoredEndpoint[];
  mode: SearchMode;
  note?: string;
}

const EMBED_BATCH = 64;

/**
 * The endpoint index of one platform: fetches and parses the description, keeps the lexical
 * index in memory and the endpoint vectors in the vector store. Vectors are synchronised by
 * content hash with deterministic ids: an unchanged description embeds nothing, a changed one
 * upserts changed endpoints and deletes removed ones. start() builds in the background; search
 * waits for the first build up to a timeout. Builds and refreshes run one at a time.
 */
export class EndpointIndex {
  private search?: EndpointSearch;
  private describer?: OperationDescriber;
  private descriptionHash?: string;
  private denseCollection?: string;
  private lexicalReason?: string;
  private state: EndpointIndexState = { status: 'starting', endpoints: 0, mode: 'lexical' };
  private queue: Promise<unknown> = Promise.resolve();
  private firstBuild?: Promise<RefreshResult>;
  /** Settles as soon as the lexical index exists: search does not wait for the vectors. */
  private readonly lexicalReady: Promise<void>;
  private markLexicalReady!: () => void;

  constructor(private readonly deps: EndpointIndexDeps) {
    this.lexicalReady = new Promise((resolve) => {
      this.markLexicalReady = resolve;
    });
  }

  /** Starts the first build in the background; after a failure the next call tries again. */
  start(): Promise<RefreshResult> {
    if (!this.firstBuild) {
      const build = this.refresh();
      this.firstBuild = build;
      build.catch(() => {
        if (this.firstBuild === build) this.firstBuild = undefined;
      });
    }
    return this.firstBuild;
  }

  status(): EndpointIndexState {
    return { ...this.state };
  }

  /** Fetches the description again and brings both indexes up to date. */
  refresh(): Promise<RefreshResult> {
    const run = this.queue.then(() => this.build());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Waits up to `timeoutMs` for the first build, then searches. */
  async find(query: string, limit: number, timeoutMs: number): Promise<SearchOutcome> {
    const search = await this.ready(timeoutMs);
    const dense = this.denseScorer();
    const results = await search.search(query, limit, dense);
    const mode: SearchMode = dense ? 'hybrid' : 'lexical';
    const notes = [
      ...(results.length > 0 && results.every(({ score }) => score === 0)
        ? ['no word of the request matched the API description; these are general lists: name the object or action differently']
        : []),
      ...(mode === 'lexical' ? [`lexical search only: ${this.lexicalReason ?? 'the endpoint vectors are still being built'}`] : []),
    ];
    return notes.length ? { results, mode, note: notes.join('; ') } : { results, mode };
  }

  /**
   * Describes one operation (parameters, request body) by method and path, waiting up to
   * `timeoutMs` for the first build. Throws UnknownOperationError, naming the closest
   * operations, when the description has no such operation.
   */
  async describe(method: string, path: string, timeoutMs: number, options: DescribeOptions = {}): Promise<OperationSchema> {
    await this.ready(timeoutMs);
    return this.describer!.describe(method, path, options);
  }

  /** The parsed description's operations and schemas, waiting up to `timeoutMs` for the first build. */
  async operations(timeoutMs: number): Promise<OperationDescriber> {
    await this.ready(timeoutMs);
    return this.describer!;
  }

  /** The endpoint at a method and path (ids filled in or not), or undefined when the description has none. */
  async operation(method: string, path: string, timeoutMs: number): Promise<EndpointDocument | undefined> {
    await this.ready(timeoutMs);
    return this.describer!.operation(method, path);
  }

  /** The path template of the operation at a method and concrete path, once the description is read (names a request's span). */
  pathTemplate(method: string, path: string): string | undefined {
    return this.describer?.operation(method, path)?.path;
  }

  private async ready(timeoutMs: number): Promise<EndpointSearch> {
    if (this.search) return this.search;
    const build = this.start();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new UnavailableError(`the endpoint index is still being built (waited ${timeoutMs} ms)`, {
              remedy:
                'Wait for the index (the tool server reports its state on GET /health; a large description takes a minute) and retry.',
            }),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.lexicalReady, build, timeout]);
    } catch (error) {
      if (error instanceof UnavailableError && !this.search) throw error;
      if (!this.search) {
        throw new UnavailableError(`the endpoint index could not be built: ${this.state.error ?? String(error)}`, {
          remedy:
            'Fix what the message names (PLATFORM_ENV and its PLATFORM_URL_*, PLATFORM_TOKEN, PLATFORM_SPEC_PATH), then call refresh_endpoint_index.',
        });
      }
    } finally {
      clearTimeout(timer);
    }
    return this.search!;
  }

  private denseScorer(): DenseScorer | undefined {
    const dense = this.deps.dense;
    const collection = this.denseCollection;
    if (!dense || !collection) return undefined;
    return async (query, limit) => {
      try {
        const [vector] = await dense.embedder.embed([query]);
        const hits = await dense.store.search(collection, vector!, limit);
        return new Map(hits.map((hit) => [String(hit.payload.key), hit.score]));
      } catch (error) {
        this.deps.logger.warn('dense search failed; this answer is lexical only', {
          error: error instanceof Error ? error.message : String(error),
        });
        return new Map();
      }
    };
  }

  private async build(): Promise<RefreshResult> {
    const started = performance.now();
    try {
      const raw = await this.deps.fetchDescription();
      const hash = createHash('sha256').update(JSON.stringify(raw)).digest('hex');
      const unchanged = hash === this.descriptionHash && this.search !== undefined;
      const parsed = unchanged ? undefined : parseDescription(raw);
      if (parsed) {
        this.search = new EndpointSearch(parsed.endpoints);
        this.describer = new OperationDescriber(parsed);
        this.markLexicalReady();
      }
      const endpoints = this.search!.endpoints;
      const { embedded, removed } = unchanged ? { embedded: 0, removed: 0 } : await this.syncVectors(endpoints);
      this.descriptionHash = hash;
      const mode: SearchMode = this.denseCollection ? 'hybrid' : 'lexical';
      this.state = {
        status: 'ready',
        endpoints: endpoints.length,
        mode,
        ...(this.lexicalReason && mode === 'lexical' ? { lexicalReason: this.lexicalReason } : {}),
        descriptionHash: hash,
        builtAt: new Date().toISOString(),
      };
      const result = {
        endpointsIndexed: endpoints.length,
        embedded,
        removed,
        unchanged,
        timeTakenMs: Math.round(performance.now() - started),
        mode,
      };
      this.deps.logger.info('endpoint index ready', { ...result, title: parsed?.title, version: parsed?.version });
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.state = { ...this.state, status: this.search ? 'ready' : 'failed', error: message };
      this.deps.logger.error('endpoint index build failed', { error: message });
      throw error;
    }
  }

  /** Upserts endpoints whose hash changed, deletes those gone; lexical only when no model loads. */
  private async syncVectors(endpoints: EndpointDocument[]): Promise<{ embedded: number; removed: number }> {
    const dense = this.deps.dense;
    if (!dense) {
      this.lexicalReason ??= 'dense retrieval is turned off (EMBEDDING_MODEL=none)';
      return { embedded: 0, removed: 0 };
    }
    let dimension: number;
    try {
      ({ dimension } = await dense.embedder.load());
    } catch (error) {
      if (!this.lexicalReason) {
        this.lexicalReason = `no embedding model could be loaded (${dense.embedder.model})`;
        this.deps.logger.warn('embedding model unavailable: endpoint search runs lexical only', {
          model: dense.embedder.model,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      return { embedded: 0, removed: 0 };
    }
    const collection = collectionName('endpoints', this.deps.platform, dense.embedder.model, dimension);
    await dense.store.ensureCollection(collection, dimension);
    const stored = new Map((await dense.store.payloads(collection)).map(({ id, payload }) => [id, payload.hash]));
    const current = endpoints.map((endpoint) => ({ endpoint, id: pointId(endpoint.key), hash: endpointHash(endpoint) }));
    const changed = current.filter(({ id, hash }) => stored.get(id) !== hash);
    const keep = new Set(current.map(({ id }) => id));
    const removed = [...stored.keys()].filter((id) => !keep.has(id));
    for (let start = 0; start < changed.length; start += EMBED_BATCH) {
      const batch = changed.slice(start, start + EMBED_BATCH);
      const vectors = await dense.embedder.embed(batch.map(({ endpoint }) => endpointEmbeddingText(endpoint, endpointPurpose(endpoint))));
      await dense.store.upsert(
        collection,
        batch.map(({ endpoint, id, hash }, index) => ({
          id,
          vector: vectors[index]!,
          payload: { key: endpoint.key, method: endpoint.method, path: endpoint.path, hash },
        })),
      );
    }
    await dense.store.delete(collection, removed);
    this.denseCollection = collection;
    this.lexicalReason = undefined;
    return { embedded: changed.length, removed: removed.length };
  }
}
