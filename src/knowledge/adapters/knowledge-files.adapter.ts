import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { IndexState } from '../index-state.js';
import type { KnowledgeLayout } from '../knowledge-layout.js';
import type { DocumentCollection, KnowledgeState, UserRepositories } from '../knowledge-state.port.js';
import type { LexicalChunks, StoredChunk } from '../lexical-chunks.port.js';
import type { Manifest } from '../manifest.js';
import { readJson, writeJsonAtomic } from './json-file.js';

/** One JSON file per document, replaced atomically. */
class JsonFiles<T> implements DocumentCollection<T> {
  constructor(private readonly fileOf: (name: string) => string) {}

  get(name: string): Promise<T | undefined> {
    return readJson<T>(this.fileOf(name));
  }

  put(name: string, value: T): Promise<void> {
    return writeJsonAtomic(this.fileOf(name), value);
  }

  delete(name: string): Promise<void> {
    return rm(this.fileOf(name), { force: true });
  }
}

/** The knowledge state of a process on its own: files in the knowledge folder of DATA_DIR. */
export function fileKnowledgeState(layout: KnowledgeLayout): KnowledgeState {
  return {
    repositories: new JsonFiles<UserRepositories>(() => path.join(layout.knowledgeDir, 'repositories.json')),
    runs: new JsonFiles<IndexState>((name) => layout.state(name)),
    manifests: new JsonFiles<Manifest>((name) => layout.manifest(name)),
  };
}

/** Lexical chunks in one JSON file per repository; the file's modification time is its version. */
export class FileLexicalChunks implements LexicalChunks {
  constructor(private readonly layout: KnowledgeLayout) {}

  versions(repositories: string[]): Promise<Array<string | undefined>> {
    return Promise.all(
      repositories.map(async (repository) => (await stat(this.layout.lexical(repository)).catch(() => undefined))?.mtimeMs.toString()),
    );
  }

  async load(repository: string): Promise<StoredChunk[]> {
    return (await readJson<{ chunks: StoredChunk[] }>(this.layout.lexical(repository)))?.chunks ?? [];
  }

  async ids(repository: string): Promise<string[]> {
    return (await this.load(repository)).map((item) => item.id);
  }

  async apply(repository: string, changes: { upsert: StoredChunk[]; delete: string[] }): Promise<void> {
    const chunks = new Map((await this.load(repository)).map((item) => [item.id, item]));
    for (const id of changes.delete) chunks.delete(id);
    for (const item of changes.upsert) chunks.set(item.id, item);
    await writeJsonAtomic(this.layout.lexical(repository), { chunks: [...chunks.values()] });
  }

  drop(repository: string): Promise<void> {
    return rm(this.layout.lexical(repository), { force: true });
  }
}
