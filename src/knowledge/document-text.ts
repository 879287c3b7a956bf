import type { KnowledgeChunk } from './chunk-store.port.js';

/**
 * A file's text rebuilt from its chunks (in the manifest's order): each chunk's lines go back at
 * their line numbers, so the lines two chunks share (the overlap of a split section) come once, and
 * the blank lines no chunk holds (between sections) come back empty. Pieces of one line longer than
 * a chunk are joined as they are: each repeats the end of the one before (that overlap stays).
 * Blank lines at the end of the file, and whitespace on blank lines, are not kept.
 */
export function documentText(chunks: KnowledgeChunk[]): string {
  const lines: string[] = [];
  let previous: KnowledgeChunk | undefined;
  for (const chunk of chunks) {
    const start = chunk.start_line - 1;
    const piece = chunk.start_line === chunk.end_line && previous?.start_line === start + 1 && previous.end_line === start + 1;
    if (piece) lines[start] += chunk.content;
    else chunk.content.split('\n').forEach((line, offset) => (lines[start + offset] = line));
    previous = chunk;
  }
  return Array.from(lines, (line) => line ?? '').join('\n');
}
