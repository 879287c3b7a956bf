import type { Logger } from '../kernel/logging/logger.js';
import type { ChunkStore } from './chunk-store.port.js';
import type { IndexProgress, IndexResult, IndexRunner, PurgeResult } from './index-runner.port.js';
import type { IndexState } from './index-state.js';
import { documentText } from './document-text.js';
import type { DocumentCollection } from './knowledge-state.port.js';
import type { Manifest } from './manifest.js';
import type { KnowledgeLocks } from './locks.port.js';
import { relevantPassages } from './passage-extract.js';
import { sourcePrior } from './source-prior.js';
import { repositorySlug, repositoryView, type RepositoryView } from './repository.js';
import type { RepositoryList } from './repository-list.js';
import {
  admitRepository,
  type RepositoryRequest,
  type RepositoryRules,
  type RepositoryWriter,
  type RequestFields,
} from './repository-admission.js';

/**
 * What a lexical answer tells the agent: passages are found by shared words, so the agent (which
 * often knows the library's names) closes the gap between a user's words and the documentation's.
 */
const LEXICAL_NOTE =
  'lexical search only (no embedding model is loaded): passages are found by the words they share with the query; ' +
  'name the option, function, class or error code you expect, and search again in other words if nothing answers';

/** Longest hit text with optimize_for_llm: about half a chunk, room for an answer line and what leads to it. */
export const OPTIMIZED_MAX_CHARS = 700;
const CANDIDATES_PER_RESULT = 3;
const MIN_CANDIDATES = 20;

export interface SearchHit {
  repository: string;
  file_path: string;
  content: string;
  similarity_score: number;
  metadata: { file_type: string; last_updated: string; start_line: number; end_line: number; commit: string };
}

export interface SearchAnswer {
  results: SearchHit[];
  /** Chunks searched (of the enabled, indexed repositories). */
  total_searched: number;
  /** Seconds. */
  query_time: number;
  search_mode: 'dense' | 'lexical';
  note?: string;
}

export interface RepositoryStatus {
  name: string;
  status: 'indexed' | 'not_indexed' | 'indexing' | 'failed';
  documents: number;
  last_indexed: string | null;
  indexing: boolean;
  enabled: boolean;
  commit: string | null;
  progress?: { files_done: number; files_total: number };
  error?: string;
}

export interface KnowledgeStatus {
  repositories: RepositoryStatus[];
  total_documents: number;
  indexing_active: boolean;
}

export interface UpdateOutcome {
  repository: string;
  result?: IndexResult;
  error?: string;
}

/** An indexed file of a repository, as a document of the knowledge base. */
export interface KnowledgeDocument {
  repository: string;
  path: string;
  /** Its chunks in the index. */
  chunks: number;
}

export interface KnowledgeDocumentText extends KnowledgeDocument {
  /** The file as its chunks hold it (see documentText). */
  text: string;
  /** The indexed commit. */
  commit: string;
}

export interface KnowledgeBaseDeps {
  lists: RepositoryList;
  /** Each repository's last or current run, whichever process ran it. */
  runs: Pick<DocumentCollection<IndexState>, 'get' | 'all'>;
  /** What each repository's index holds: its files and their chunks in order. */
  manifests: Pick<DocumentCollection<Manifest>, 'get'>;
  /** A run is under way while its repository's lock is held. */
  locks: Pick<KnowledgeLocks, 'held'>;
  runner: IndexRunner;
  /** The chunk store searches read (absent where only administration runs, like the API). */
  store?: () => Promise<ChunkStore>;
  /** What writers short of superuser may add: internal hosts, local folders. */
  rules: RepositoryRules;
  logger: Logger;
}

/**
 * The knowledge base as the tools, the HTTP API and the CLI use it: repository lists, index runs
 * (in this process or as queue jobs, through the runner), status and search.
 */
export class KnowledgeBase {
  constructor(private readonly deps: KnowledgeBaseDeps) {}

  get runnerKind(): IndexRunner['kind'] {
    return this.deps.runner.kind;
  }

  async listRepositories(): Promise<RepositoryView[]> {
    return (await this.deps.lists.list()).map(repositoryView);
  }

  /** Adds a user repository to the list without indexing it, once the rules admit it (`fields`: the request's field names, for errors). */
  async register(request: RepositoryRequest, writer: RepositoryWriter, fields?: RequestFields): Promise<RepositoryView> {
    return repositoryView(await this.deps.lists.add(await admitRepository(request, writer, this.deps.rules, fields)));
  }

  /** Adds a user repository and starts indexing it; resolves to the entry and the job id. */
  async addRepository(
    request: RepositoryRequest,
    writer: RepositoryWriter,
    fields?: RequestFields,
  ): Promise<{ repository: RepositoryView; job_id: string }> {
    const repository = await this.register(request, writer, fields);
    const jobId = await this.deps.runner.start(repository.name, { force: false });
    return { repository, job_id: jobId };
  }

  /** Removes a user repository from the list, then every chunk, its manifest and its clone. */
  async removeRepository(name: string): Promise<PurgeResult> {
    const removed = await this.deps.lists.remove(name);
    return this.deps.runner.purge(removed.name);
  }

  async startIndexing(name: string, force: boolean): Promise<{ repository: string; job_id: string }> {
    const repo = await this.deps.lists.get(name);
    return { repository: repo.name, job_id: await this.deps.runner.start(repo.name, { force }) };
  }

  /** Indexes one repository on the list and waits for the run; `onProgress` hears its progress. */
  async index(name: string, options: { force: boolean; onProgress?: (progress: IndexProgress) => void }): Promise<IndexResult> {
    const repo = await this.deps.lists.get(name);
    return this.deps.runner.index(repo.name, options);
  }

  /**
   * Indexes the named repository, or every enabled one in priority order; failures are reported per
   * repository. `onProgress` hears each run's progress, by repository.
   */
  async update(options: {
    force: boolean;
    repository?: string;
    onProgress?: (repository: string, progress: IndexProgress) => void;
  }): Promise<UpdateOutcome[]> {
    const repos = options.repository
      ? [await this.deps.lists.get(options.repository)]
      : (await this.deps.lists.list()).filter((repo) => repo.enabled);
    const outcomes = await Promise.all(
      repos.map(async (repo): Promise<UpdateOutcome> => {
        try {
          const { onProgress } = options;
          const index = {
            force: options.force,
            ...(onProgress ? { onProgress: (progress: IndexProgress) => onProgress(repo.name, progress) } : {}),
          };
          return { repository: repo.name, result: await this.deps.runner.index(repo.name, index) };
        } catch (error) {
          return { repository: repo.name, error: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    return outcomes;
  }

  async status(): Promise<KnowledgeStatus> {
    const repos = await this.deps.lists.list();
    const repositories = await Promise.all(
      repos.map(async (repo): Promise<RepositoryStatus> => {
        const state = await this.deps.runs.get(repo.name);
        // A run whose process died leaves its state at `indexing`; its lock expires.
        const indexing = state?.state === 'indexing' && (await this.deps.locks.held(repositorySlug(repo.name)));
        const indexed = state?.indexed_at !== undefined;
        const status: RepositoryStatus['status'] = indexing
          ? 'indexing'
          : state?.state === 'failed'
            ? 'failed'
            : indexed
              ? 'indexed'
              : 'not_indexed';
        return {
          name: repo.name,
          status,
          documents: state?.documents ?? 0,
          last_indexed: state?.indexed_at ?? null,
          indexing,
          enabled: repo.enabled,
          commit: state?.commit ?? null,
          ...(indexing ? { progress: { files_done: state.files_done, files_total: state.files_total } } : {}),
          ...(state?.state === 'failed' && state.error ? { error: state.error } : {}),
        };
      }),
    );
    return {
      repositories,
      total_documents: repositories.reduce((sum, repo) => sum + repo.documents, 0),
      indexing_active: repositories.some((repo) => repo.indexing),
    };
  }

  /** The chunk store searches and reads go to. */
  private async searchedStore(): Promise<ChunkStore> {
    // A plain Error: a process wired without a store (the API) never searches; a search there is a bug.
    if (!this.deps.store) throw new Error('this process has no chunk store for searching');
    return this.deps.store();
  }

  /**
   * The manifests of the enabled repositories indexed in this process's chunk store: what a search
   * reaches, and so what may be read. `name` narrows it to one (none when it is not enabled).
   */
  private async readable(name?: string): Promise<Manifest[]> {
    const store = await this.searchedStore();
    const listed = (await this.deps.lists.list()).filter(
      (repo) => repo.enabled && (name === undefined || repo.name.toLowerCase() === name.toLowerCase()),
    );
    const manifests = await Promise.all(listed.map((repo) => this.deps.manifests.get(repo.name)));
    return manifests.filter((manifest): manifest is Manifest => manifest?.store === store.key);
  }

  /** Every indexed file of the enabled repositories, by repository and path. */
  async documents(): Promise<KnowledgeDocument[]> {
    return (await this.readable()).flatMap((manifest) =>
      Object.entries(manifest.files)
        .map(([path, file]) => ({ repository: manifest.repository, path, chunks: file.ids.length }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    );
  }

  /** One indexed file of an enabled repository, its text rebuilt from its chunks; undefined when there is none. */
  async document(repository: string, path: string): Promise<KnowledgeDocumentText | undefined> {
    const [manifest] = await this.readable(repository);
    const file = manifest && Object.hasOwn(manifest.files, path) ? manifest.files[path] : undefined;
    if (!manifest || !file) return undefined;
    const chunks = await (await this.searchedStore()).read(manifest.repository, file.ids);
    return { repository: manifest.repository, path, chunks: file.ids.length, text: documentText(chunks), commit: manifest.commit };
  }

  /** Semantic search over the enabled, indexed repositories, or only `repository` (lexical when no model loads). */
  async search(query: string, limit: number, optimizeForLlm: boolean, repository?: string): Promise<SearchAnswer> {
    const started = performance.now();
    const store = await this.searchedStore();
    // The list and every run state at once: with Redis, one round trip for the whole search while this machine's index is current.
    const [listed, runs] = await Promise.all([
      repository
        ? this.deps.lists.get(repository).then((repo) => [repo])
        : this.deps.lists.list().then((all) => all.filter((repo) => repo.enabled)),
      this.deps.runs.all(),
    ]);
    await store.prune?.(new Set(runs.keys()));
    const searched = listed.flatMap((repo) => {
      const state = runs.get(repo.name);
      return state?.store === store.key ? [{ name: repo.name, version: state.version, documents: state.documents ?? 0 }] : [];
    });
    // More candidates than asked, so that documentation and library code can move ahead of tests and data.
    const candidates = await store.search(searched, query, Math.max(limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES));
    const hits = candidates
      .map((hit) => ({ ...hit, score: hit.score * sourcePrior(hit.chunk.file_path) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
    const results = hits.map(({ chunk, score }): SearchHit => ({
      repository: chunk.repository,
      file_path: chunk.file_path,
      content: optimizeForLlm ? relevantPassages(chunk.content, query, OPTIMIZED_MAX_CHARS) : chunk.content,
      similarity_score: Math.round(score * 1000) / 1000,
      metadata: {
        file_type: chunk.file_type,
        last_updated: chunk.last_updated,
        start_line: chunk.start_line,
        end_line: chunk.end_line,
        commit: chunk.commit,
      },
    }));
    return {
      results,
      total_searched: searched.reduce((sum, { documents }) => sum + documents, 0),
      query_time: Math.round(performance.now() - started) / 1000,
      search_mode: store.mode,
      ...(store.mode === 'lexical' ? { note: LEXICAL_NOTE } : {}),
      ...(searched.length === 0 ? { note: 'no repository is indexed yet: run platform_kb_init_repos (or aiops kb update)' } : {}),
    };
  }
}
