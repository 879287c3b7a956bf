import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { IndexState } from '../index-state.js';
import type { KnowledgeLayout } from '../knowledge-layout.js';
import { USER_REPOSITORIES, type DocumentCollection, type KnowledgeState, type UserRepositories } from '../knowledge-state.port.js';
import type { Manifest } from '../manifest.js';
import { repositoryFromSlug, repositorySlug } from '../repository.js';
import { readJson, writeJsonAtomic } from './json-file.js';

/** How a collection names its files in its folder, and which document a file holds (undefined: none of its documents). */
interface FileNaming {
  file(name: string): string;
  name(file: string): string | undefined;
}

const BY_REPOSITORY: FileNaming = {
  file: (name) => `${repositorySlug(name)}.json`,
  name: (file) => (file.endsWith('.json') ? repositoryFromSlug(file.slice(0, -'.json'.length)) : undefined),
};
const USER_LIST: FileNaming = {
  file: () => 'repositories.json',
  name: (file) => (file === 'repositories.json' ? USER_REPOSITORIES : undefined),
};

/** One JSON file per document in one folder, replaced atomically. */
class JsonFiles<T> implements DocumentCollection<T> {
  constructor(
    private readonly dir: string,
    private readonly naming: FileNaming,
  ) {}

  get(name: string): Promise<T | undefined> {
    return readJson<T>(path.join(this.dir, this.naming.file(name)));
  }

  async all(): Promise<Map<string, T>> {
    const files = await readdir(this.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const documents = new Map<string, T>();
    for (const file of files) {
      const name = this.naming.name(file);
      const value = name === undefined ? undefined : await readJson<T>(path.join(this.dir, file));
      if (name !== undefined && value !== undefined) documents.set(name, value);
    }
    return documents;
  }

  put(name: string, value: T): Promise<void> {
    return writeJsonAtomic(path.join(this.dir, this.naming.file(name)), value);
  }

  delete(name: string): Promise<void> {
    return rm(path.join(this.dir, this.naming.file(name)), { force: true });
  }
}

/** The knowledge state of a process on its own: files in the knowledge folder of DATA_DIR. */
export function fileKnowledgeState(layout: KnowledgeLayout): KnowledgeState {
  return {
    repositories: new JsonFiles<UserRepositories>(layout.knowledgeDir, USER_LIST),
    runs: new JsonFiles<IndexState>(layout.statesDir, BY_REPOSITORY),
    manifests: new JsonFiles<Manifest>(layout.manifestsDir, BY_REPOSITORY),
  };
}
