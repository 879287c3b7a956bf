import path from 'node:path';

/**
 * Where the knowledge base keeps its files under DATA_DIR: clones in `repos/owner/name`; this
 * machine's lexical index in `knowledge/lexical-index/`; and, for a process without Redis, the user
 * list, manifests, run states and locks in `knowledge/`.
 */
export class KnowledgeLayout {
  readonly knowledgeDir: string;
  readonly locksDir: string;
  readonly manifestsDir: string;
  readonly statesDir: string;
  readonly lexicalIndexDir: string;

  constructor(readonly dataDir: string) {
    this.knowledgeDir = path.join(dataDir, 'knowledge');
    this.locksDir = path.join(this.knowledgeDir, 'locks');
    this.manifestsDir = path.join(this.knowledgeDir, 'manifests');
    this.statesDir = path.join(this.knowledgeDir, 'state');
    this.lexicalIndexDir = path.join(this.knowledgeDir, 'lexical-index');
  }

  clone(name: string): string {
    const [owner, repo] = name.split('/') as [string, string];
    return path.join(this.dataDir, 'repos', owner, repo);
  }
}
