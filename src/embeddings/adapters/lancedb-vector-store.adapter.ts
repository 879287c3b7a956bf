import { Index, type Connection, type Table } from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';
import { ValidationError } from '../../kernel/errors.js';
import type { VectorHit, VectorIndexReport, VectorPoint, VectorStore } from '../vector-store.port.js';
import { openLanceDb, sqlString } from './lancedb-connection.js';

/**
 * Index data a process keeps in memory: the partitions searched most. The rest are read from the
 * files again when probed (a partition of a million 384-dimension vectors is about 1.5 MB).
 */
const INDEX_CACHE_BYTES = 256 * 1024 * 1024;
/** The name LanceDB gives the index of the `vector` column. */
const VECTOR_INDEX = 'vector_idx';
/** Below this many rows an exhaustive scan takes a few milliseconds and no index is built. */
const INDEX_MIN_ROWS = 10_000;
/**
 * IVF partitions searched per query. The index is IVF_FLAT with about sqrt(rows) partitions, so
 * 20 probes read about 20 * sqrt(rows) vectors: 6,300 of 100,000, recall@10 about 0.97 against an
 * exhaustive search on clustered 384-dimension data.
 */
const NPROBES = 20;

/** The vector index as built and searched, for benchmark records. */
export const VECTOR_INDEX_SETTINGS = { kind: 'IVF_FLAT', distance: 'cosine', partitions: 'round(sqrt(rows))', nprobes: NPROBES };

/**
 * The embedded vector store: LanceDB tables in a folder under DATA_DIR, one table per collection,
 * columns `id`, `vector` (float32, fixed size) and `payload` (JSON text). Reads check for newer
 * versions each time, so this process sees what another process wrote.
 *
 * optimize() compacts the table's fragments (every upsert batch writes one) and, from
 * INDEX_MIN_ROWS rows on, keeps a cosine IVF_FLAT index on `vector`. IVF_FLAT rather than IVF_PQ
 * or HNSW_SQ: at 100,000 x 384 it trains in about 5 s where those took one to two minutes (it only
 * runs k-means: no quantizer, no graph), searches in well under the 50 ms target, and it keeps full
 * vectors, so scores are exact cosines without a refine step (IVF_PQ and HNSW_SQ return quantized
 * distances unless refined) and recall depends only on the probes. Rows written after the index was built are
 * searched exhaustively and merged with the indexed hits (no fastSearch), and deleted rows are
 * filtered, so searches stay correct between optimize() calls. The next optimize() adds new rows to
 * their nearest partitions; once they outnumber the indexed rows the partitions were trained on
 * too small a sample and the index is trained again.
 */
export class LanceDbVectorStore implements VectorStore {
  readonly kind = 'lancedb';
  private readonly tables = new Map<string, Promise<Table>>();

  private constructor(
    private readonly db: Connection,
    private readonly indexMinRows: number,
  ) {}

  /** `indexMinRows` (default 10,000) is lowered by tests so that a small collection gets an index. */
  static async open(dir: string, options: { indexMinRows?: number } = {}): Promise<LanceDbVectorStore> {
    return new LanceDbVectorStore(
      await openLanceDb(dir, { indexBytes: INDEX_CACHE_BYTES }, { everyRead: true }),
      options.indexMinRows ?? INDEX_MIN_ROWS,
    );
  }

  private table(name: string): Promise<Table> {
    let table = this.tables.get(name);
    if (!table) {
      table = this.db.openTable(name);
      table.catch(() => this.tables.delete(name));
      this.tables.set(name, table);
    }
    return table;
  }

  async ensureCollection(name: string, dimension: number): Promise<void> {
    const schema = new Schema([
      new Field('id', new Utf8(), false),
      new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), false),
      new Field('payload', new Utf8(), false),
    ]);
    const table = await this.db.createEmptyTable(name, schema, { mode: 'create', existOk: true });
    const existing = (await table.schema()).fields.find((field) => field.name === 'vector')?.type as FixedSizeList | undefined;
    if (existing?.listSize !== dimension) {
      throw ValidationError.field('collection', `${name} holds vectors of dimension ${existing?.listSize}, not ${dimension}`);
    }
    this.tables.set(name, Promise.resolve(table));
  }

  async upsert(name: string, points: VectorPoint[]): Promise<void> {
    if (!points.length) return;
    const rows = points.map((point) => ({ id: point.id, vector: point.vector, payload: JSON.stringify(point.payload) }));
    await (await this.table(name)).mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
  }

  async delete(name: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await (await this.table(name)).delete(`id IN (${ids.map(sqlString).join(', ')})`);
  }

  async search(name: string, vector: number[], limit: number): Promise<VectorHit[]> {
    const rows = (await (
      await this.table(name)
    )
      .vectorSearch(vector)
      .distanceType('cosine')
      .nprobes(NPROBES)
      .select(['id', 'payload', '_distance'])
      .limit(limit)
      .toArray()) as Array<{
      id: string;
      payload: string;
      _distance: number;
    }>;
    return rows.map((row) => ({ id: row.id, score: 1 - row._distance, payload: JSON.parse(row.payload) as Record<string, unknown> }));
  }

  async optimize(name: string): Promise<VectorIndexReport> {
    const table = await this.table(name);
    const vectorIndex = async () => (await table.listIndices()).find((index) => index.name === VECTOR_INDEX);
    const points = await table.countRows();
    const index = await vectorIndex();
    if (points >= this.indexMinRows && (!index || (index.numUnindexedRows ?? 0) > (index.numIndexedRows ?? 0))) {
      await table.createIndex('vector', {
        config: Index.ivfFlat({ distanceType: 'cosine', numPartitions: Math.round(Math.sqrt(points)) }),
        replace: true,
      });
    }
    await table.optimize();
    return { points: await table.countRows(), indexed: (await vectorIndex())?.numIndexedRows ?? 0 };
  }

  async payloads(name: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>> {
    const rows = (await (await this.table(name)).query().select(['id', 'payload']).toArray()) as Array<{ id: string; payload: string }>;
    return rows.map((row) => ({ id: row.id, payload: JSON.parse(row.payload) as Record<string, unknown> }));
  }

  async dropCollection(name: string): Promise<void> {
    this.tables.delete(name);
    if ((await this.db.tableNames()).includes(name)) await this.db.dropTable(name);
  }

  async close(): Promise<void> {
    for (const table of this.tables.values()) (await table.catch(() => undefined))?.close();
    this.tables.clear();
    this.db.close();
  }
}
