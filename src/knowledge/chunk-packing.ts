/** A run of lines of one file: 0-based, `end` exclusive, with the headings or definition it sits in. */
export interface Section {
  start: number;
  end: number;
  context: string;
}

export interface ChunkSettings {
  /** Largest chunk, in characters; longer sections are split. */
  maxChars: number;
  /** Characters of the previous piece repeated at the start of the next one when a section is split. */
  overlapChars: number;
}

/** A chunk of a file: 1-based inclusive lines and the text of those lines. */
export interface TextChunk {
  startLine: number;
  endLine: number;
  content: string;
  /** Where the chunk sits (heading path, enclosing class), for the embedding text. */
  context: string;
}

const size = (lines: string[], start: number, end: number): number => {
  let total = 0;
  for (let i = start; i < end; i++) total += lines[i]!.length + 1;
  return total;
};

/** Drops blank lines at both ends; an all-blank section becomes empty. */
export function trimSection(lines: string[], section: Section): Section {
  let { start, end } = section;
  while (start < end && !lines[start]!.trim()) start++;
  while (end > start && !lines[end - 1]!.trim()) end--;
  return { ...section, start, end };
}

/** Joins neighbours while both are small and the result fits, so tiny keys or paragraphs do not each become a chunk. */
export function mergeSmall(lines: string[], sections: Section[], settings: ChunkSettings): Section[] {
  const small = Math.min(300, settings.maxChars / 4);
  const merged: Section[] = [];
  for (const section of sections) {
    const last = merged.at(-1);
    if (last && size(lines, last.start, last.end) < small && size(lines, last.start, section.end) <= settings.maxChars) {
      merged[merged.length - 1] = { start: last.start, end: section.end, context: last.context || section.context };
    } else {
      merged.push(section);
    }
  }
  return merged;
}

/** Packs neighbouring sections of one context into one while the result fits, so a chunk holds as many whole declarations as it can. */
export function packSiblings(lines: string[], sections: Section[], settings: ChunkSettings): Section[] {
  const packed: Section[] = [];
  for (const section of sections) {
    const last = packed.at(-1);
    if (last && last.context === section.context && size(lines, last.start, section.end) <= settings.maxChars) {
      packed[packed.length - 1] = { ...last, end: section.end };
    } else {
      packed.push(section);
    }
  }
  return packed;
}

/**
 * Blocks a long section may be split between: runs of lines separated by blank lines, with each
 * `atomic` range (a fenced code block, a signature with its docstring) kept in one block.
 */
function blocksOf(lines: string[], section: Section, atomic: Array<[number, number]>): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let start = section.start;
  let i = section.start;
  while (i < section.end) {
    const range = atomic.find(([from, to]) => from <= i && i < to);
    if (range) {
      i = Math.min(range[1], section.end);
      continue;
    }
    if (!lines[i]!.trim()) {
      if (i > start) blocks.push([start, i]);
      start = i + 1;
    }
    i++;
  }
  if (start < section.end) blocks.push([start, section.end]);
  return blocks;
}

/**
 * Turns sections into chunks of at most `maxChars`: a section that fits is one chunk; a longer one
 * is packed block by block, each new piece starting with up to `overlapChars` of the previous
 * piece's last lines; a block too long on its own is split by lines, and a line too long on its own
 * by characters.
 */
export function packSections(
  lines: string[],
  sections: Section[],
  settings: ChunkSettings,
  atomic: Array<[number, number]> = [],
): TextChunk[] {
  const chunks: TextChunk[] = [];
  const emit = (start: number, end: number, context: string) => {
    chunks.push({ startLine: start + 1, endLine: end, content: lines.slice(start, end).join('\n'), context });
  };
  for (const raw of sections) {
    const section = trimSection(lines, raw);
    if (section.start >= section.end) continue;
    if (size(lines, section.start, section.end) <= settings.maxChars) {
      emit(section.start, section.end, section.context);
      continue;
    }
    // Units: blocks, or single lines of blocks that are too long; a line too long is cut below.
    const units: Array<[number, number]> = [];
    for (const [from, to] of blocksOf(lines, section, atomic)) {
      if (size(lines, from, to) <= settings.maxChars) units.push([from, to]);
      else for (let line = from; line < to; line++) units.push([line, line + 1]);
    }
    let pieceStart = -1;
    let pieceEnd = -1;
    const flush = () => {
      if (pieceStart >= 0) emit(pieceStart, pieceEnd, section.context);
    };
    for (const [from, to] of units) {
      const unitSize = size(lines, from, to);
      if (unitSize > settings.maxChars) {
        flush();
        pieceStart = -1;
        const text = lines[from]!;
        const step = Math.max(1, settings.maxChars - settings.overlapChars);
        for (let at = 0; at < text.length; at += step) {
          chunks.push({
            startLine: from + 1,
            endLine: from + 1,
            content: text.slice(at, at + settings.maxChars),
            context: section.context,
          });
          if (at + settings.maxChars >= text.length) break;
        }
        continue;
      }
      if (pieceStart >= 0 && size(lines, pieceStart, to) > settings.maxChars) {
        flush();
        // Overlap: the previous piece's last lines, as many as fit in overlapChars.
        let overlapStart = pieceEnd;
        while (overlapStart > pieceStart && size(lines, overlapStart - 1, pieceEnd) <= settings.overlapChars) overlapStart--;
        pieceStart = size(lines, overlapStart, to) <= settings.maxChars ? overlapStart : from;
        while (pieceStart < from && !lines[pieceStart]!.trim()) pieceStart++;
      } else if (pieceStart < 0) {
        pieceStart = from;
      }
      pieceEnd = to;
    }
    flush();
  }
  return chunks;
}
