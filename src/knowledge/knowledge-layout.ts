import path from 'node:path';
import { repositorySlug } from './repository.js';

/**
 * Where the knowledge base keeps its files under DATA_DIR: clones in `repos/owner/name`; the user
 * list, manifests, run states, locks and lexical chunk files in `knowledge/`.
 */
export class KnowledgeLayout {
  readonly knowledgeDir: string;
  readonly locksDir: string;

  constructor(readonly dataDir: string) {
    this.knowledgeDir = path.join(dataDir, 'knowledge');
    this.locksDir = path.join(this.knowledgeDir, 'locks');
  }

  clone(name: string): string {
    const [owner, repo] = name.split('/') as [string, string];
    return path.join(this.dataDir, 'repos', owner, repo);
  }

  manifest(name: string): string {
    return path.join(this.knowledgeDir, 'manifests', `${repositorySlug(name)}.json`);
  }

  state(name: string): string {
    return path.join(this.knowledgeDir, 'state', `${repositorySlug(name)}.json`);
  }

  lexical(name: string): string {
    return path.join(this.knowledgeDir, 'lexical', `${repositorySlug(name)}.json`);
  }
}
