import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
// First: it sets Lance's environment before Lance loads.
import { openLanceDb, sqlString } from '../../embeddings/adapters/lancedb-connection.js';
import { Index, MatchQuery, Operator, type Connection, type Table } from '@lancedb/lancedb';
import { Field, Int32, Schema, Utf8 } from 'apache-arrow';
import { slices } from '../../kernel/slices.js';
import type { KnowledgeChunk } from '../chunk-store.port.js';
import type { ChunkChanges, StoredChunk } from '../lexical-chunks.port.js';
import type { LexicalCandidate, LexicalChange, LexicalIndex, TermStatistics } from '../lexical-index.port.js';
import type { KnowledgeLocks } from '../locks.port.js';
import { repositorySlug } from '../repository.js';
import { FileLocks } from './file-locks.adapter.js';
import { readJson, writeJsonAtomic } from './json-file.js';

const MB = 1024 * 1024;
/** Posting lists and scalar indexes a process keeps in memory; the rest is read from the files again. */
const INDEX_CACHE_BYTES = 192 * MB;
/** A segment holds at most this many chunks: its full-text index builds in seconds and in a few hundred MB. */
const SEGMENT_CHUNKS = 250_000;
/** Segments of about the same size are merged F at a time (the smallest level is under UNIT chunks). */
const MERGE_FACTOR = 4;
const MERGE_UNIT = 1_000;
/** Segments from this size on also get scalar indexes (on `id` and `repository`): below, a scan is as fast. */
const SCALAR_INDEX_CHUNKS = 10_000;
/** Ids per delete filter, terms per lookup. */
const FILTER_BATCH = 1_000;
/** Rows gathered before one write: each write is a file (a fragment) of the table, and fewer files read faster. */
const ROWS_PER_WRITE = 10_000;
/** Document frequencies remembered per process (segments never change their terms, so entries never go stale). */
const CACHED_FREQUENCIES = 200_000;
/** A merge or a catch-up of a large repository holds the lock for minutes. */
const LOCK_WAIT_MS = 30 * 60_000;
/** An unregistered table (a change whose process died) is removed once this old. */
const ABANDONED_MS = 24 * 60 * 60_000;
/** Longest word indexed: longer strings (encoded data) are never searched for. */
const MAX_TERM_CHARS = 256;

const SEGMENT_SCHEMA = new Schema([
  new Field('id', new Utf8(), false),
  new Field('repository', new Utf8(), false),
  new Field('terms', new Utf8(), false),
  new Field('chunk', new Utf8(), false),
]);
const TERMS_SCHEMA = new Schema([new Field('term', new Utf8(), false), new Field('chunks', new Int32(), false)]);

/** A row of a segment table (a type, not an interface: LanceDB takes records). */
type SegmentRow = { id: string; repository: string; terms: string; chunk: string };

/** The rows of a batch LanceDB returned, as plain records of the columns selected. */
const rowsOf = <T>(batch: { toArray(): unknown[] }): T[] => batch.toArray() as T[];

/** A segment as the manifest lists it: its table and its counts when it was built (deletions since do not change them). */
interface Segment {
  name: string;
  chunks: number;
  words: number;
}

/**
 * What the index holds: its segments, oldest first (a chunk id in a newer segment replaces the same
 * id in an older one), the repositories with chunks in them, and the shared version of each
 * repository it is a copy of.
 */
interface Manifest {
  segments: Segment[];
  repositories: string[];
  versions: Record<string, string>;
}

const EMPTY: Manifest = { segments: [], repositories: [], versions: {} };

/** Table names carry their creation time, so that a table abandoned by a dead process can be told from one being written. */
const tableName = () => `segment_${Date.now()}_${randomUUID().slice(0, 8)}`;
const termsTable = (segment: string) => `${segment}_terms`;
const createdAt = (name: string) => Number(/^segment_(\d+)_/.exec(name)?.[1] ?? Number.NaN);

const inList = (column: string, values: string[]) => `${column} IN (${values.map(sqlString).join(', ')})`;
/** The merge level of a segment: segments of one level are within a factor MERGE_FACTOR of each other. */
const level = (chunks: number) => (chunks < MERGE_UNIT ? 0 : Math.floor(Math.log(chunks / MERGE_UNIT) / Math.log(MERGE_FACTOR)) + 1);

/** A segment being written: rows added, the counts its manifest entry and its terms table need. */
class SegmentBuilder {
  chunks = 0;
  words = 0;
  readonly frequencies = new Map<string, number>();
  private pending: SegmentRow[] = [];

  private constructor(
    readonly name: string,
    private readonly table: Table,
  ) {}

  static async create(db: Connection): Promise<SegmentBuilder> {
    const name = tableName();
    return new SegmentBuilder(name, await db.createEmptyTable(name, SEGMENT_SCHEMA));
  }

  async add(rows: SegmentRow[]): Promise<void> {
    for (const row of rows) {
      const terms = row.terms ? row.terms.split(' ') : [];
      this.chunks++;
      this.words += terms.length;
      for (const term of new Set(terms)) this.frequencies.set(term, (this.frequencies.get(term) ?? 0) + 1);
    }
    this.pending.push(...rows);
    if (this.pending.length >= ROWS_PER_WRITE) await this.write();
  }

  private async write(): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    if (rows.length) await this.table.add(rows);
  }

  /** Builds the full-text index (BM25 over the words as stored), the scalar indexes of a large segment, and the terms table. */
  async build(db: Connection): Promise<Segment> {
    await this.write();
    await this.table.createIndex('terms', {
      config: Index.fts({
        baseTokenizer: 'whitespace',
        lowercase: false,
        stem: false,
        removeStopWords: false,
        asciiFolding: false,
        withPosition: false,
        maxTokenLength: MAX_TERM_CHARS,
      }),
    });
    if (this.chunks >= SCALAR_INDEX_CHUNKS) {
      await this.table.createIndex('id', { config: Index.btree() });
      await this.table.createIndex('repository', { config: Index.bitmap() });
    }
    const terms = await db.createEmptyTable(termsTable(this.name), TERMS_SCHEMA);
    const entries = [...this.frequencies].map(([term, chunks]) => ({ term, chunks }));
    for (const part of slices(entries, 50_000)) await terms.add(part);
    if (entries.length >= SCALAR_INDEX_CHUNKS) await terms.createIndex('term', { config: Index.btree() });
    terms.close();
    this.table.close();
    this.frequencies.clear();
    return { name: this.name, chunks: this.chunks, words: this.words };
  }
}

/** The result of a staged change: its new segments (built, not listed yet) and the ids it writes and deletes. */
interface Staged {
  built: Segment[];
  upserted: string[];
  deleted: string[];
}

/** A change of one repository streamed into new segments (a new one every SEGMENT_CHUNKS), none listed before `register`. */
class StagedChange {
  private readonly built: Segment[] = [];
  private readonly upserted = new Set<string>();
  private readonly deleted = new Set<string>();
  private builder?: SegmentBuilder;

  constructor(
    private readonly db: Connection,
    private readonly repository: string,
  ) {}

  /** Writes chunks; an id this change wrote already is kept as first written (a full scan may return a chunk twice). */
  async add(chunks: StoredChunk[]): Promise<void> {
    const fresh = chunks.filter((item) => !this.upserted.has(item.id));
    for (const item of fresh) {
      this.upserted.add(item.id);
      this.deleted.delete(item.id);
    }
    if (!fresh.length) return;
    this.builder ??= await SegmentBuilder.create(this.db);
    await this.builder.add(
      fresh.map((item) => ({ id: item.id, repository: this.repository, terms: item.terms, chunk: JSON.stringify(item.chunk) })),
    );
    if (this.builder.chunks >= SEGMENT_CHUNKS) await this.seal();
  }

  delete(ids: string[]): void {
    for (const id of ids) {
      this.deleted.add(id);
      this.upserted.delete(id);
    }
  }

  private async seal(): Promise<void> {
    const builder = this.builder;
    this.builder = undefined;
    if (builder) this.built.push(await builder.build(this.db));
  }

  async finish(): Promise<Staged> {
    await this.seal();
    return { built: this.built, upserted: [...this.upserted], deleted: [...this.deleted] };
  }

  /** The tables written so far, to remove when the change fails. */
  tables(): string[] {
    return [...this.built.flatMap((segment) => [segment.name, termsTable(segment.name)]), ...(this.builder ? [this.builder.name] : [])];
  }
}

/**
 * The lexical index of this machine: LanceDB tables under DATA_DIR with Lance's own full-text
 * index (BM25 over each chunk's stored words), read by every process of the machine and written
 * by one at a time (a lock file), with nothing of the chunks held in memory.
 *
 * Lance 0.31 cannot fold new rows into a full-text index: its incremental update leaves a second
 * index segment that multi-word queries search wrongly (hits of the new rows go missing). So the
 * index is segmented here, log-structured: a change becomes a new table (a segment) with an index
 * built whole, the chunks it replaces or deletes are deleted from older segments (deletion files,
 * no rewrite), and segments of about the same size are merged MERGE_FACTOR at a time into one, up
 * to SEGMENT_CHUNKS. A change costs the time of its own chunks and, amortised, a few merges of
 * each chunk over its life: never a rebuild of the whole index. A search asks every segment
 * (a handful) for its best BM25 candidates and takes each term's document frequency from the
 * segments' terms tables, so that scores are over the whole index.
 *
 * `manifest.json` lists the segments and the shared versions held, replaced atomically; a process
 * that dies mid-change leaves unlisted tables, removed a day later.
 */
export class LanceDbLexicalIndex implements LexicalIndex {
  /** Segment tables as searches read them: each at the version it was opened at, until the manifest changes. */
  private readonly tables = new Map<string, Promise<Table>>();
  private readonly frequencies = new Map<string, number>();
  private manifestCache?: { file: string; manifest: Manifest };
  private connection?: Promise<Connection>;

  private constructor(
    private readonly dir: string,
    private readonly locks: KnowledgeLocks,
  ) {}

  /** The index in `dir`; nothing is created there before the first change (a machine that only writes to Redis keeps none). */
  static async open(dir: string): Promise<LanceDbLexicalIndex> {
    return new LanceDbLexicalIndex(dir, new FileLocks(path.join(dir, 'locks')));
  }

  private db(): Promise<Connection> {
    // Searches read the tables as they were when the manifest last changed: a change (its deletions,
    // its new segments) becomes visible at once when the manifest names it, and no query pays for a
    // look at the table's latest version.
    return (this.connection ??= openLanceDb(this.dir, { indexBytes: INDEX_CACHE_BYTES }, { everyRead: false }));
  }

  private get manifestFile(): string {
    return path.join(this.dir, 'manifest.json');
  }

  /** The manifest as last written: read again, with every table, when the file was replaced. */
  private async manifest(): Promise<Manifest> {
    const file = await stat(this.manifestFile).catch(() => undefined);
    if (!file) return EMPTY;
    const identity = `${file.ino}:${file.mtimeMs}:${file.size}`;
    if (this.manifestCache?.file !== identity) {
      this.manifestCache = { file: identity, manifest: { ...EMPTY, ...(await readJson<Manifest>(this.manifestFile)) } };
      // Searches under way keep the handles they hold (released when collected); new ones open the tables again.
      this.tables.clear();
    }
    return this.manifestCache.manifest;
  }

  /** The manifest from the file, not the cache (under the lock, before a change). */
  private async freshManifest(): Promise<Manifest> {
    this.manifestCache = undefined;
    return this.manifest();
  }

  private table(name: string): Promise<Table> {
    let table = this.tables.get(name);
    if (!table) {
      table = this.db().then((db) => db.openTable(name));
      table.catch(() => this.tables.delete(name));
      this.tables.set(name, table);
    }
    return table;
  }

  /** A table at its latest version, for a change (closed after `work`). */
  private async latest<T>(name: string, work: (table: Table) => Promise<T>): Promise<T> {
    const table = await (await this.db()).openTable(name);
    try {
      return await work(table);
    } finally {
      table.close();
    }
  }

  async version(repository: string): Promise<string | undefined> {
    return (await this.manifest()).versions[repository];
  }

  /** Runs `work` as the machine's one writer of the manifest. */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.locks.acquire('index', { waitMs: LOCK_WAIT_MS });
    try {
      return await work();
    } finally {
      await release();
    }
  }

  private async writeManifest(manifest: Manifest): Promise<void> {
    await writeJsonAtomic(this.manifestFile, manifest);
  }

  /** Deletes the rows matching `filter` from each segment holding any (a deletion file; nothing is rewritten). */
  private async deleteWhere(segments: Segment[], filter: string): Promise<void> {
    for (const segment of segments) {
      await this.latest(segment.name, async (table) => {
        if ((await table.query().where(filter).select(['id']).limit(1).toArray()).length) await table.delete(filter);
      });
    }
  }

  private async deleteIds(segments: Segment[], ids: string[]): Promise<void> {
    for (const part of slices(ids, FILTER_BATCH)) await this.deleteWhere(segments, inList('id', part));
  }

  /**
   * Lists staged segments for `repository`, under the lock: deletes the chunks the change deletes
   * or replaces (`complete`: every chunk of the repository) from the segments listed, then lists
   * the new segments with the version they bring, then merges. Searches go on reading the tables as
   * the previous manifest found them until the new one is written, so they see the change whole.
   */
  private async register(
    repository: string,
    staged: Staged,
    options: { complete: boolean; version?: string; dropVersion?: boolean },
  ): Promise<void> {
    await this.exclusive(async () => {
      const current = await this.freshManifest();
      if (options.complete) await this.deleteWhere(current.segments, `repository = ${sqlString(repository)}`);
      else await this.deleteIds(current.segments, staged.upserted);
      // The new segments too: a chunk written, then deleted within the change.
      await this.deleteIds([...current.segments, ...staged.built], staged.deleted);
      const versions = { ...current.versions };
      if (options.version !== undefined) versions[repository] = options.version;
      else if (options.dropVersion) delete versions[repository];
      const held = staged.built.length > 0 || (!options.complete && current.repositories.includes(repository));
      const next: Manifest = {
        segments: [...current.segments, ...staged.built],
        repositories: [...current.repositories.filter((name) => name !== repository), ...(held ? [repository] : [])],
        versions,
      };
      await this.writeManifest(next);
      await this.merge(next);
      await this.removeAbandoned();
    });
  }

  /** Merges the newest segments while MERGE_FACTOR of them share a level. */
  private async merge(manifest: Manifest): Promise<void> {
    let segments = manifest.segments;
    for (;;) {
      const last = segments.at(-1);
      if (!last || last.chunks >= SEGMENT_CHUNKS) return;
      let start = segments.length - 1;
      while (start > 0 && level(segments[start - 1]!.chunks) === level(last.chunks) && segments[start - 1]!.chunks < SEGMENT_CHUNKS)
        start--;
      if (segments.length - start < MERGE_FACTOR) return;
      const merging = segments.slice(start);
      const builder = await SegmentBuilder.create(await this.db());
      const seen = new Set<string>();
      try {
        // Newest first: the newest copy of an id is the one kept.
        for (const segment of [...merging].reverse()) {
          await this.latest(segment.name, async (table) => {
            for await (const batch of table.query().select(['id', 'repository', 'terms', 'chunk'])) {
              const rows = rowsOf<SegmentRow>(batch)
                .filter((row) => !seen.has(row.id))
                .map(({ id, repository, terms, chunk }) => ({ id, repository, terms, chunk }));
              for (const row of rows) seen.add(row.id);
              if (rows.length) await builder.add(rows);
            }
          });
        }
      } catch (error) {
        await this.dropTables([builder.name]);
        throw error;
      }
      const merged = builder.chunks > 0 ? [await builder.build(await this.db())] : [];
      if (!merged.length) await this.dropTables([builder.name]);
      segments = [...segments.slice(0, start), ...merged];
      await this.writeManifest({ ...manifest, segments });
      await this.dropTables(merging.flatMap((segment) => [segment.name, termsTable(segment.name)]));
    }
  }

  private async dropTables(names: string[]): Promise<void> {
    const db = await this.db();
    const existing = new Set(await db.tableNames());
    for (const name of names) {
      const table = this.tables.get(name);
      this.tables.delete(name);
      (await table?.catch(() => undefined))?.close();
      if (existing.has(name)) await db.dropTable(name);
    }
  }

  /** Tables no manifest lists, left by a process that died while writing them. */
  private async removeAbandoned(): Promise<void> {
    const listed = new Set((await this.freshManifest()).segments.flatMap((segment) => [segment.name, termsTable(segment.name)]));
    const abandoned = (await (await this.db()).tableNames()).filter(
      (name) => !listed.has(name) && Date.now() - createdAt(name) > ABANDONED_MS,
    );
    await this.dropTables(abandoned);
  }

  async catchUp(repository: string, version: string, since: (held: string | undefined) => Promise<ChunkChanges>): Promise<void> {
    const release = await this.locks.acquire(`catch-up~${repositorySlug(repository)}`, { waitMs: LOCK_WAIT_MS });
    try {
      const held = (await this.freshManifest()).versions[repository];
      if (held === version) return;
      const changes = await since(held);
      if (changes.version === held && !changes.complete) return;
      const change = new StagedChange(await this.db(), repository);
      const staged = await this.staged(change, async () => {
        for await (const batch of changes.batches) {
          change.delete(batch.delete);
          await change.add(batch.upsert);
        }
      });
      await this.register(repository, staged, {
        complete: changes.complete,
        ...(changes.version === undefined ? { dropVersion: true } : { version: changes.version }),
      });
    } finally {
      await release();
    }
  }

  /** Runs `write` on `change` and finishes it; on failure its tables go. */
  private async staged(change: StagedChange, write: () => Promise<void>): Promise<Staged> {
    try {
      await write();
      return await change.finish();
    } catch (error) {
      await this.dropTables(change.tables());
      throw error;
    }
  }

  async change(repository: string): Promise<LexicalChange> {
    const change = new StagedChange(await this.db(), repository);
    let failed = false;
    const guard = async (write: () => Promise<void>) => {
      try {
        await write();
      } catch (error) {
        failed = true;
        await this.dropTables(change.tables());
        throw error;
      }
    };
    return {
      add: (chunks) => guard(() => change.add(chunks)),
      delete: (ids) => change.delete(ids),
      commit: async () => {
        // A plain Error: the failed add already threw to the caller, and committing after it is the caller's bug.
        if (failed) throw new Error('this change of the lexical index failed; run it again');
        await this.register(repository, await this.staged(change, async () => undefined), { complete: false });
      },
    };
  }

  async ids(repository: string): Promise<string[]> {
    const ids = new Set<string>();
    for (const segment of (await this.freshManifest()).segments) {
      await this.latest(segment.name, async (table) => {
        for await (const batch of table
          .query()
          .where(`repository = ${sqlString(repository)}`)
          .select(['id'])) {
          for (const row of rowsOf<{ id: string }>(batch)) ids.add(row.id);
        }
      });
    }
    return [...ids];
  }

  private async readFrom(manifest: Manifest, repository: string, ids: string[]): Promise<StoredChunk[]> {
    const found = new Map<string, StoredChunk>();
    // Newest segment first: its copy of an id replaces older ones not yet deleted.
    for (const segment of [...manifest.segments].reverse()) {
      const table = await this.table(segment.name);
      for (const part of slices(ids, FILTER_BATCH)) {
        const rows = (await table
          .query()
          .where(`repository = ${sqlString(repository)} AND ${inList('id', part)}`)
          .select(['id', 'terms', 'chunk'])
          .toArray()) as SegmentRow[];
        for (const row of rows) {
          if (!found.has(row.id)) found.set(row.id, { id: row.id, terms: row.terms, chunk: JSON.parse(row.chunk) as KnowledgeChunk });
        }
      }
    }
    return [...found.values()];
  }

  async read(repository: string, ids: string[]): Promise<StoredChunk[]> {
    if (!ids.length) return [];
    try {
      return await this.readFrom(await this.manifest(), repository, ids);
    } catch {
      // A merge in another process removed a segment this one was reading: read the new list once.
      return this.readFrom(await this.freshManifest(), repository, ids);
    }
  }

  async held(): Promise<string[]> {
    const { repositories, versions } = await this.manifest();
    return [...new Set([...repositories, ...Object.keys(versions)])];
  }

  async drop(repository: string): Promise<void> {
    const held = await this.manifest();
    if (!held.repositories.includes(repository) && !(repository in held.versions)) return;
    await this.exclusive(async () => {
      const current = await this.freshManifest();
      await this.deleteWhere(current.segments, `repository = ${sqlString(repository)}`);
      const versions = { ...current.versions };
      delete versions[repository];
      await this.writeManifest({ ...current, repositories: current.repositories.filter((name) => name !== repository), versions });
    });
  }

  /** How many chunks of each segment hold each term (looked up in the segments' terms tables, remembered). */
  private async chunksWith(segments: Segment[], terms: string[]): Promise<Map<string, number>> {
    const totals = new Map<string, number>();
    await Promise.all(
      segments.map(async (segment) => {
        const key = (term: string) => `${segment.name}\n${term}`;
        const missing = terms.filter((term) => !this.frequencies.has(key(term)));
        if (missing.length) {
          const found = new Map(
            (
              (await (await this.table(termsTable(segment.name))).query().where(inList('term', missing)).toArray()) as Array<{
                term: string;
                chunks: number;
              }>
            ).map((row) => [row.term, row.chunks]),
          );
          for (const term of missing) this.remember(key(term), found.get(term) ?? 0);
        }
        for (const term of terms) totals.set(term, (totals.get(term) ?? 0) + this.frequencies.get(key(term))!);
      }),
    );
    for (const [term, chunks] of totals) if (chunks === 0) totals.delete(term);
    return totals;
  }

  private remember(key: string, chunks: number): void {
    if (this.frequencies.size >= CACHED_FREQUENCIES) this.frequencies.delete(this.frequencies.keys().next().value!);
    this.frequencies.set(key, chunks);
  }

  private async search(manifest: Manifest, repositories: string[], terms: string[], wanted: { results: number; candidates: number }) {
    const { segments } = manifest;
    // Most searches ask for every repository held: no filter to evaluate then.
    const filter = manifest.repositories.every((name) => repositories.includes(name)) ? undefined : inList('repository', repositories);
    const chunks = segments.reduce((sum, segment) => sum + segment.chunks, 0);
    // Each segment's share of the candidates follows its size; taking a chunk's text costs more than ranking it.
    const limitOf = (segment: Segment) => Math.max(wanted.results, Math.ceil((wanted.candidates * segment.chunks) / Math.max(1, chunks)));
    const [chunksWith, perSegment] = await Promise.all([
      this.chunksWith(segments, terms),
      Promise.all(
        segments.map(async (segment) => {
          const query = (await this.table(segment.name))
            .query()
            .fullTextSearch(new MatchQuery(terms.join(' '), 'terms', { operator: Operator.Or }))
            .select(['id', 'terms', 'chunk', '_score'])
            .limit(limitOf(segment));
          return (await (filter ? query.where(filter) : query).toArray()) as Array<SegmentRow & { _score: number }>;
        }),
      ),
    ]);
    const statistics: TermStatistics = {
      chunks,
      words: segments.reduce((sum, segment) => sum + segment.words, 0),
      chunksWith,
    };
    const seen = new Set<string>();
    const candidates: LexicalCandidate[] = [];
    // Newest segment first: its copy of an id replaces older ones not yet deleted.
    for (const rows of perSegment.reverse()) {
      for (const row of rows) {
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        candidates.push({ id: row.id, terms: row.terms, chunk: JSON.parse(row.chunk) as KnowledgeChunk });
      }
    }
    return { statistics, candidates };
  }

  async candidates(
    repositories: string[],
    terms: string[],
    wanted: { results: number; candidates: number },
  ): Promise<{ statistics: TermStatistics; candidates: LexicalCandidate[] }> {
    const manifest = await this.manifest();
    if (!manifest.segments.length || !terms.length || !repositories.length)
      return { statistics: { chunks: 0, words: 0, chunksWith: new Map() }, candidates: [] };
    try {
      return await this.search(manifest, repositories, terms, wanted);
    } catch {
      // A merge in another process removed a segment this one was reading: read the new list once.
      return this.search(await this.freshManifest(), repositories, terms, wanted);
    }
  }

  async close(): Promise<void> {
    for (const table of this.tables.values()) (await table.catch(() => undefined))?.close();
    this.tables.clear();
    (await this.connection)?.close();
    this.connection = undefined;
  }
}
