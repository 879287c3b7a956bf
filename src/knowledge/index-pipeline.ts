import { createHash } from 'node:crypto';
import type { Logger } from '../kernel/logging/logger.js';
import { pointId } from '../embeddings/point-id.js';
import type { ChunkSettings } from './chunk-packing.js';
import type { ChunkStore, ChunkToStore } from './chunk-store.port.js';
import { chunkFile } from './chunkers.js';
import { listRepositoryFiles, readRepositoryFile } from './file-walker.js';
import type { GitSource } from './git.port.js';
import type { IndexProgress, IndexResult } from './index-runner.port.js';
import { gitFailureWithoutWords, gitWordsShown, remoteRequest, type RemoteAccess } from './remote-access.js';
import type { IndexState } from './index-state.js';
import type { KnowledgeLayout } from './knowledge-layout.js';
import type { KnowledgeState } from './knowledge-state.port.js';
import type { KnowledgeLocks } from './locks.port.js';
import { chunkCount, type Manifest, type ManifestFile } from './manifest.js';
import { repositorySlug, type Repository } from './repository.js';

export interface IndexSettings extends ChunkSettings {
  maxFileBytes: number;
  /** How long a run waits for another run of the same repository (another process) to finish. */
  lockWaitMs: number;
}

export interface IndexPipelineDeps {
  git: GitSource;
  /** Where each repository is fetched from, with which credential. */
  remotes: RemoteAccess;
  store: ChunkStore;
  /** Where clones go (this machine's cache). */
  layout: KnowledgeLayout;
  /** Run states and manifests, seen by every process. */
  state: KnowledgeState;
  locks: KnowledgeLocks;
  settings: IndexSettings;
  logger: Logger;
}

const PROGRESS_EVERY_MS = 250;

/** Chunk ids are stable per repository, file and position: re-indexing a file overwrites its chunks. */
export const chunkId = (repository: string, filePath: string, index: number): string => pointId(`kb\n${repository}\n${filePath}\n${index}`);

/**
 * Clone or pull one repository and bring its chunks up to date: only files whose content hash
 * changed are chunked and embedded again, chunks of removed files are deleted, and the manifest
 * is written after the chunk store, so a run killed half-way leaves the previous manifest (with
 * `dirty` set) and the next run repairs the index. Runs of one repository hold its lock.
 */
export class IndexPipeline {
  constructor(private readonly deps: IndexPipelineDeps) {}

  private settingsKey(repo: Repository): string {
    const { maxChars, overlapChars, maxFileBytes } = this.deps.settings;
    return createHash('sha256')
      .update(JSON.stringify({ maxChars, overlapChars, maxFileBytes, patterns: repo.file_patterns, chunker: 2 }))
      .digest('hex')
      .slice(0, 16);
  }

  async run(
    repo: Repository,
    options: { force?: boolean; signal?: AbortSignal; onProgress?: (progress: IndexProgress) => void } = {},
  ): Promise<IndexResult> {
    const { state: shared, logger } = this.deps;
    const release = await this.deps.locks.acquire(repositorySlug(repo.name), {
      waitMs: this.deps.settings.lockWaitMs,
      signal: options.signal,
    });
    const started = Date.now();
    const previous = await shared.runs.get(repo.name);
    const state: IndexState = {
      ...(previous
        ? {
            store: previous.store,
            commit: previous.commit,
            indexed_at: previous.indexed_at,
            documents: previous.documents,
            version: previous.version,
          }
        : {}),
      state: 'indexing',
      files_done: 0,
      files_total: 0,
      started_at: new Date(started).toISOString(),
      updated_at: new Date(started).toISOString(),
    };
    let lastReport = 0;
    const report = async (force = false) => {
      options.onProgress?.({ files_done: state.files_done, files_total: state.files_total });
      if (!force && Date.now() - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = Date.now();
      state.updated_at = new Date().toISOString();
      await shared.runs.put(repo.name, state);
    };
    try {
      await report(true);
      const result = await this.index(repo, options, state, report);
      Object.assign(state, {
        state: 'indexed',
        finished_at: new Date().toISOString(),
        error: undefined,
        store: this.deps.store.key,
        commit: result.commit,
        indexed_at: state.indexed_at && result.status === 'unchanged' ? state.indexed_at : new Date().toISOString(),
        documents: result.documents,
      });
      await report(true);
      logger.info('repository indexed', { ...result });
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      Object.assign(state, { state: 'failed', finished_at: new Date().toISOString(), error: message });
      await report(true).catch(() => undefined);
      logger.warn('repository indexing failed', { repository: repo.name, error: message });
      throw error;
    } finally {
      await release();
    }
  }

  private async index(
    repo: Repository,
    options: { force?: boolean; signal?: AbortSignal },
    state: IndexState,
    report: () => Promise<void>,
  ): Promise<IndexResult> {
    const { git, store, layout, state: shared, settings } = this.deps;
    const started = Date.now();
    const dir = layout.clone(repo.name);
    const { commit, committedAt } = await git
      .sync({ ...(await remoteRequest(repo, this.deps.remotes)), branch: repo.branch, dir, signal: options.signal })
      .catch(async (error: unknown) => {
        if (await gitWordsShown(repo, this.deps.remotes)) throw error;
        this.deps.logger.warn('git could not fetch a repository', {
          repository: repo.name,
          error: error instanceof Error ? error.message : String(error),
        });
        throw gitFailureWithoutWords(repo);
      });
    const stored = await shared.manifests.get(repo.name);
    const previous = stored?.store === store.key ? stored : undefined;
    const settingsKey = this.settingsKey(repo);
    const reuse = previous && previous.settings === settingsKey && !options.force;
    if (reuse && !previous.dirty && previous.commit === commit) {
      return {
        repository: repo.name,
        status: 'unchanged',
        commit,
        files_total: Object.keys(previous.files).length,
        files_changed: 0,
        files_removed: 0,
        chunks_added: 0,
        chunks_updated: 0,
        chunks_removed: 0,
        documents: chunkCount(previous),
        time_taken_ms: Date.now() - started,
      };
    }

    const paths = await listRepositoryFiles(dir, repo.file_patterns);
    state.files_total = paths.length;
    await report();
    const writer = await store.writer(repo.name);
    // Mark the manifest before the first change: a crash from here on is repaired by the next run.
    const base: Manifest = {
      repository: repo.name,
      store: store.key,
      settings: settingsKey,
      commit: previous?.commit ?? '',
      committed_at: previous?.committed_at ?? '',
      indexed_at: previous?.indexed_at ?? '',
      dirty: true,
      files: previous?.files ?? {},
    };
    await shared.manifests.put(repo.name, base);
    const oldFiles = previous?.files ?? {};
    const files: Record<string, ManifestFile> = {};
    const pending: ChunkToStore[] = [];
    const counts = { added: 0, updated: 0, removed: 0, changed: 0 };
    const stale: string[] = [];
    const flush = async () => {
      await writer.upsert(pending.splice(0));
    };
    for (const filePath of paths) {
      options.signal?.throwIfAborted();
      const file = await readRepositoryFile(dir, filePath, settings.maxFileBytes);
      state.files_done++;
      if (!file) continue;
      const old = oldFiles[filePath];
      if (reuse && old?.hash === file.hash) {
        files[filePath] = old;
        continue;
      }
      counts.changed++;
      const { fileType, chunks } = chunkFile(filePath, file.text, settings);
      const ids = chunks.map((_, index) => chunkId(repo.name, filePath, index));
      const known = new Set(old?.ids ?? []);
      for (const [index, chunk] of chunks.entries()) {
        if (known.has(ids[index]!)) counts.updated++;
        else counts.added++;
        pending.push({
          id: ids[index]!,
          text: `${repo.name} ${filePath}\n${chunk.context}\n${chunk.content}`,
          chunk: {
            repository: repo.name,
            file_path: filePath,
            file_type: fileType,
            start_line: chunk.startLine,
            end_line: chunk.endLine,
            commit,
            last_updated: committedAt,
            content: chunk.content,
          },
        });
      }
      const keep = new Set(ids);
      stale.push(...(old?.ids ?? []).filter((id) => !keep.has(id)));
      files[filePath] = { hash: file.hash, ids };
      if (pending.length >= 256) await flush();
      await report();
    }
    await flush();
    // Files gone (deleted, now skipped or unreadable) lose every chunk.
    const gone = Object.entries(oldFiles).filter(([filePath]) => !files[filePath]);
    for (const [, old] of gone) stale.push(...old.ids);
    const live = new Set(Object.values(files).flatMap((f) => f.ids));
    // After a crash (or with force), anything stored that the new manifest does not list goes too.
    if (!previous || previous.dirty || options.force || !reuse) stale.push(...(await writer.ids()).filter((id) => !live.has(id)));
    const toDelete = [...new Set(stale)].filter((id) => !live.has(id));
    counts.removed = toDelete.length;
    await writer.delete(toDelete);
    // Recorded at once, so that a run failing after this point still names what searches must catch up to.
    state.version = await writer.commit();
    const manifest: Manifest = { ...base, commit, committed_at: committedAt, indexed_at: new Date().toISOString(), dirty: false, files };
    await shared.manifests.put(repo.name, manifest);
    await report();
    return {
      repository: repo.name,
      status: 'indexed',
      commit,
      files_total: Object.keys(files).length,
      files_changed: counts.changed,
      files_removed: gone.length,
      chunks_added: counts.added,
      chunks_updated: counts.updated,
      chunks_removed: counts.removed,
      documents: live.size,
      time_taken_ms: Date.now() - started,
    };
  }
}
