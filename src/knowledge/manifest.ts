export interface ManifestFile {
  /** sha256 of the file's bytes. */
  hash: string;
  /** Ids of the file's chunks, in order. */
  ids: string[];
}

/**
 * What is in the index for one repository, written after the vectors. `dirty` is set before a
 * run touches the index and cleared by the final write, so a run that crashed is detected and
 * the next one removes whatever it left behind.
 */
export interface Manifest {
  repository: string;
  /** The chunk store (mode, model, dimension): another store means nothing is indexed there yet. */
  store: string;
  /** Chunking settings and file patterns: other settings mean every file is chunked again. */
  settings: string;
  commit: string;
  committed_at: string;
  indexed_at: string;
  dirty: boolean;
  files: Record<string, ManifestFile>;
}

export function chunkCount(manifest: Manifest | undefined): number {
  return manifest ? Object.values(manifest.files).reduce((sum, file) => sum + file.ids.length, 0) : 0;
}
