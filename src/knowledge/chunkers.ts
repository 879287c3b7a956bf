import { mergeSmall, packSections, packSiblings, trimSection, type ChunkSettings, type Section, type TextChunk } from './chunk-packing.js';

export type FileType = 'python' | 'javascript' | 'typescript' | 'markdown' | 'rst' | 'yaml' | 'json' | 'text';

const TYPES: Record<string, FileType> = {
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  md: 'markdown',
  markdown: 'markdown',
  rst: 'rst',
  yaml: 'yaml',
  yml: 'yaml',
  json: 'json',
};

export function fileTypeOf(filePath: string): FileType {
  const extension = filePath.toLowerCase().split('/').at(-1)!.split('.').slice(1).at(-1) ?? '';
  return TYPES[extension] ?? 'text';
}

const indentOf = (line: string): number => line.length - line.trimStart().length;
const DEF = /^(\s*)(?:async\s+def|def|class)\s+([A-Za-z_][A-Za-z0-9_]*)/;

/**
 * Python: module code, each top-level def and class (decorators included) as a section; a class
 * too long for one chunk is split into its head and its methods. A definition's signature and
 * docstring form one atomic block, so the first piece of a split always carries both.
 */
function pythonSections(lines: string[], settings: ChunkSettings): { sections: Section[]; atomic: Array<[number, number]> } {
  // Lines inside triple-quoted strings are never definitions.
  const inString: boolean[] = [];
  let open: string | undefined;
  for (const line of lines) {
    inString.push(open !== undefined);
    for (const match of line.matchAll(/"""|'''/g)) {
      if (open === undefined) open = match[0];
      else if (open === match[0]) open = undefined;
    }
  }
  const defs: Array<{ line: number; indent: number; name: string; kind: string; head: number }> = [];
  lines.forEach((line, index) => {
    const match = inString[index] ? null : DEF.exec(line);
    if (!match) return;
    let head = index;
    while (head > 0 && lines[head - 1]!.trimStart().startsWith('@') && indentOf(lines[head - 1]!) === match[1]!.length) head--;
    defs.push({
      line: index,
      indent: match[1]!.length,
      name: match[2]!,
      kind: line.trimStart().startsWith('class') ? 'class' : 'def',
      head,
    });
  });
  /** Where a definition at `line` with `indent` ends: the next non-blank line indented no deeper. */
  const endOf = (line: number, indent: number): number => {
    let end = line + 1;
    let last = line + 1;
    for (; end < lines.length; end++) {
      const text = lines[end]!;
      if (!text.trim() || inString[end]) continue;
      if (indentOf(text) <= indent && !/^\s*[)\]}]/.test(text)) break;
      last = end + 1;
    }
    return last;
  };
  /** The signature (possibly over several lines) and the docstring right after it. */
  const headEnd = (line: number): number => {
    let end = line;
    while (end < lines.length && !/:\s*(#.*)?$/.test(lines[end]!)) end++;
    end++;
    const next = lines[end]?.trim() ?? '';
    const quote = next.startsWith('"""') || next.startsWith("'''") ? next.slice(0, 3) : next.match(/^[rRbBuU]?("""|''')/)?.[1];
    if (!quote) return end;
    const rest = next.slice(next.indexOf(quote) + 3);
    if (rest.includes(quote)) return end + 1;
    for (let i = end + 1; i < lines.length; i++) if (lines[i]!.includes(quote)) return i + 1;
    return end + 1;
  };
  const atomic: Array<[number, number]> = defs.map((def) => [def.head, headEnd(def.line)]);
  const sections: Section[] = [];
  let cursor = 0;
  for (const def of defs.filter((d) => d.indent === 0)) {
    if (def.head < cursor) continue;
    if (def.head > cursor) sections.push({ start: cursor, end: def.head, context: '' });
    const end = endOf(def.line, 0);
    const signature = lines[def.line]!.trim();
    const chars = lines.slice(def.head, end).join('\n').length;
    const methods =
      def.kind === 'class'
        ? defs.filter(
            (d) =>
              d.line > def.line &&
              d.line < end &&
              d.indent > 0 &&
              d.indent === Math.min(...defs.filter((x) => x.line > def.line && x.line < end).map((x) => x.indent)),
          )
        : [];
    if (chars > settings.maxChars && methods.length > 0) {
      let inner = def.head;
      for (const method of methods) {
        if (method.head > inner) sections.push({ start: inner, end: method.head, context: signature });
        inner = endOf(method.line, method.indent);
        sections.push({ start: method.head, end: inner, context: `${signature} ${lines[method.line]!.trim()}` });
      }
      if (inner < end) sections.push({ start: inner, end, context: signature });
    } else {
      sections.push({ start: def.head, end, context: signature });
    }
    cursor = end;
  }
  if (cursor < lines.length) sections.push({ start: cursor, end: lines.length, context: '' });
  // Module code between definitions is merged when small; definitions stay whole.
  const merged: Section[] = [];
  for (const section of sections) {
    const last = merged.at(-1);
    if (last && !last.context && !section.context && lines.slice(last.start, section.end).join('\n').length <= settings.maxChars) {
      merged[merged.length - 1] = { ...last, end: section.end };
    } else merged.push(section);
  }
  return { sections: merged, atomic };
}

/** A line that closes a block (`}`, `})`, `]`) or goes on with the statement above (`.then(`, `? a`, `&& b`). */
const CONTINUES = /^\s*(?:[}\])]|\.(?!\.\.)|\?|:|&&|\|\||\+|-(?!-)|\*(?!\/)|=>)/;
/** A line after which the statement goes on: it ends open (`{`, `(`, `,`), with an operator, or is a decorator. */
const OPENS = /(?:[{([,=+\-*/%&|^?:<>!]|=>|\b(?:return|await|yield|new|extends|implements))\s*$|^\s*@/;
const COMMENT = /^\s*(?:\/\/|\/\*|\*)/;

/**
 * JavaScript and TypeScript: a section per statement at the top level (a declaration with the
 * comment right above it, whole); a statement too long for one chunk is split into the statements
 * one level inside it (a class's members, an interface's fields, a function body's steps), each
 * with the comment above it, and so on down. Sections of one level are then packed together up to
 * the chunk size, so a chunk holds whole declarations, and one cut from a long declaration carries
 * that declaration's first line as its context.
 */
function scriptSections(lines: string[], settings: ChunkSettings): Section[] {
  const inComment: boolean[] = [];
  let open = false;
  for (const line of lines) {
    inComment.push(open);
    const starts = line.lastIndexOf('/*');
    const ends = line.lastIndexOf('*/');
    if (starts >= 0 && starts > ends) open = true;
    else if (ends >= 0) open = false;
  }
  const blank = (index: number) => !lines[index]!.trim();
  const comment = (index: number) => inComment[index]! || COMMENT.test(lines[index]!);
  /** Statements at `indent` in [start, end): each runs to the next one, comments above it included. */
  const statements = (start: number, end: number, indent: number): number[] => {
    const found: number[] = [];
    let previous = -1;
    for (let index = start; index < end; index++) {
      if (blank(index)) continue;
      const line = lines[index]!;
      const starts =
        indentOf(line) === indent &&
        !inComment[index] &&
        !CONTINUES.test(line) &&
        (previous < 0 ||
          index > previous + 1 ||
          (indentOf(lines[previous]!) <= indent && !comment(previous) && !OPENS.test(lines[previous]!.replace(/\s*\/\/.*$/, ''))) ||
          (comment(index) && !comment(previous)));
      if (starts) found.push(index);
      previous = index;
    }
    if (found[0] !== start) found.unshift(start);
    return found;
  };
  /** The first line of code of a statement (its comment skipped). */
  const headOf = (start: number, end: number): number => {
    for (let index = start; index < end; index++) if (!blank(index) && !comment(index)) return index;
    return start;
  };
  const sectionsOf = (start: number, end: number, indent: number, context: string): Section[] => {
    const found = statements(start, end, indent);
    const pieces = found.flatMap((from, position): Section[] => {
      const piece = trimSection(lines, { start: from, end: found[position + 1] ?? end, context });
      if (piece.start >= piece.end || lines.slice(piece.start, piece.end).join('\n').length <= settings.maxChars) return [piece];
      const head = headOf(piece.start, piece.end);
      const inner = lines
        .slice(head + 1, piece.end)
        .filter((line, offset) => line.trim() && !inComment[head + 1 + offset] && indentOf(line) > indent);
      if (!inner.length) return [piece];
      const title = lines[head]!.trim().replace(/\s*[{(]\s*$/, '');
      const members = sectionsOf(head + 1, piece.end, Math.min(...inner.map(indentOf)), context ? `${context} > ${title}` : title);
      // The statement's first line and the comment above it open its first member.
      members[0] = { ...members[0]!, start: piece.start };
      return members;
    });
    return packSiblings(lines, pieces, settings);
  };
  return sectionsOf(0, lines.length, 0, '');
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/** Markdown: a section per heading (ATX or setext), with the heading path as context; fenced code blocks are atomic. */
function markdownSections(lines: string[]): { sections: Section[]; atomic: Array<[number, number]> } {
  const atomic: Array<[number, number]> = [];
  const starts: Array<{ line: number; level: number; title: string }> = [];
  let fence: { marker: string; start: number } | undefined;
  lines.forEach((line, index) => {
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (
        fenceMatch &&
        fenceMatch[1]![0] === fence.marker[0] &&
        fenceMatch[1]!.length >= fence.marker.length &&
        !line.trim().slice(fenceMatch[1]!.length).trim()
      ) {
        atomic.push([fence.start, index + 1]);
        fence = undefined;
      }
      return;
    }
    if (fenceMatch) {
      fence = { marker: fenceMatch[1]!, start: index };
      return;
    }
    const atx = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) starts.push({ line: index, level: atx[1]!.length, title: atx[2]! });
    else if (
      index > 0 &&
      /^\s{0,3}(=+|-+)\s*$/.test(line) &&
      lines[index - 1]!.trim() &&
      !/^\s*([-*+]|\d+\.)\s/.test(lines[index - 1]!) &&
      !starts.some((s) => s.line === index - 1)
    ) {
      starts.push({ line: index - 1, level: line.trim().startsWith('=') ? 1 : 2, title: lines[index - 1]!.trim() });
    }
  });
  if (fence) atomic.push([fence.start, lines.length]);
  return { sections: headingSections(lines, starts), atomic };
}

/** Sections from heading starts, each with its heading path ("Install > Docker"). */
function headingSections(lines: string[], starts: Array<{ line: number; level: number; title: string }>): Section[] {
  const sections: Section[] = [];
  const path: Array<{ level: number; title: string }> = [];
  if (!starts.length || starts[0]!.line > 0) sections.push({ start: 0, end: starts[0]?.line ?? lines.length, context: '' });
  starts.forEach((start, index) => {
    while (path.length && path.at(-1)!.level >= start.level) path.pop();
    path.push(start);
    sections.push({ start: start.line, end: starts[index + 1]?.line ?? lines.length, context: path.map((p) => p.title).join(' > ') });
  });
  return sections;
}

const RST_ADORNMENT = /^([=\-~^"'`#*+:.<>_])\1+\s*$/;

/** reStructuredText: a section per title (underlined, optionally overlined); levels follow the order adornments first appear. */
function rstSections(lines: string[]): Section[] {
  const levels: string[] = [];
  const starts: Array<{ line: number; level: number; title: string }> = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const title = lines[i]!;
    const under = lines[i + 1]!;
    if (
      !title.trim() ||
      /^\s/.test(title) ||
      RST_ADORNMENT.test(title) ||
      !RST_ADORNMENT.test(under) ||
      under.trim().length < title.trim().length
    )
      continue;
    const over = i > 0 && RST_ADORNMENT.test(lines[i - 1]!) && lines[i - 1]!.trim()[0] === under.trim()[0];
    const style = `${over ? 'o' : ''}${under.trim()[0]}`;
    if (!levels.includes(style)) levels.push(style);
    starts.push({ line: over ? i - 1 : i, level: levels.indexOf(style) + 1, title: title.trim() });
    i++;
  }
  return headingSections(lines, starts);
}

/** YAML: a section per top-level key or document (`---`); comments just above a key belong to it. */
function yamlSections(lines: string[]): Section[] {
  const starts: Array<{ line: number; key: string }> = [];
  lines.forEach((line, index) => {
    const key = /^([^\s#-][^:]*?|-{3}.*):(\s|$)/.exec(line)?.[1] ?? (/^---(\s|$)/.test(line) ? '---' : undefined);
    if (key === undefined) return;
    let start = index;
    while (start > 0 && lines[start - 1]!.startsWith('#')) start--;
    starts.push({ line: start, key: key.trim().replace(/^["']|["']$/g, '') });
  });
  return keySections(lines, starts);
}

function keySections(lines: string[], starts: Array<{ line: number; key: string }>): Section[] {
  if (!starts.length) return [{ start: 0, end: lines.length, context: '' }];
  const sections: Section[] = starts[0]!.line > 0 ? [{ start: 0, end: starts[0]!.line, context: '' }] : [];
  starts.forEach((start, index) => sections.push({ start: start.line, end: starts[index + 1]?.line ?? lines.length, context: start.key }));
  return sections;
}

/** JSON: a section per top-level key (or top-level array element), found by a scan that respects strings. */
function jsonSections(lines: string[]): Section[] {
  const starts: Array<{ line: number; key: string }> = [];
  let depth = 0;
  let rootArray = false;
  let expectKey = false;
  lines.forEach((line, index) => {
    for (let i = 0; i < line.length; i++) {
      const char = line[i]!;
      if (depth === 1 && rootArray && !/[\s,\]]/.test(char) && starts.at(-1)?.line !== index)
        starts.push({ line: index, key: `[${starts.length}]` });
      if (char === '"') {
        let j = i + 1;
        while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
        if (depth === 1 && expectKey) {
          starts.push({ line: index, key: line.slice(i + 1, j) });
          expectKey = false;
        }
        i = j;
      } else if (char === '{' || char === '[') {
        if (depth === 0) {
          rootArray = char === '[';
          expectKey = !rootArray;
        }
        depth++;
      } else if (char === '}' || char === ']') depth--;
      else if (char === ',' && depth === 1) expectKey = !rootArray;
    }
  });
  return keySections(lines, starts);
}

/**
 * Splits a file into chunks by its structure (see the section finders above), then caps long
 * sections with overlap. Line numbers are 1-based and inclusive.
 */
export function chunkFile(filePath: string, text: string, settings: ChunkSettings): { fileType: FileType; chunks: TextChunk[] } {
  const fileType = fileTypeOf(filePath);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const whole: Section[] = [{ start: 0, end: lines.length, context: '' }];
  let sections: Section[];
  let atomic: Array<[number, number]> = [];
  switch (fileType) {
    case 'python':
      ({ sections, atomic } = pythonSections(lines, settings));
      break;
    case 'javascript':
    case 'typescript':
      sections = scriptSections(lines, settings);
      break;
    case 'markdown':
      ({ sections, atomic } = markdownSections(lines));
      sections = mergeSmall(lines, sections, settings);
      break;
    case 'rst':
      sections = mergeSmall(lines, rstSections(lines), settings);
      break;
    case 'yaml':
      sections = mergeSmall(lines, yamlSections(lines), settings);
      break;
    case 'json':
      sections = mergeSmall(lines, jsonSections(lines), settings);
      break;
    default:
      sections = whole;
  }
  return { fileType, chunks: packSections(lines, sections, settings, atomic) };
}
