import { connect, type Connection, type Table } from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';
import { ValidationError } from '../../errors.js';
import type { VectorHit, VectorPoint, VectorStore } from '../../vector-store/vector-store.js';

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The embedded vector store: LanceDB tables in a folder under DATA_DIR, one table per collection,
 * columns `id`, `vector` (float32, fixed size) and `payload` (JSON text). Reads check for newer
 * versions each time, so this process sees what another process wrote.
 */
export class LanceDbVectorStore implements VectorStore {
  readonly kind = 'lancedb';
  private readonly tables = new Map<string, Promise<Table>>();

  private constructor(private readonly db: Connection) {}

  static async open(dir: string): Promise<LanceDbVectorStore> {
    return new LanceDbVectorStore(await connect(dir, { readConsistencyInterval: 0 }));
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
    await (await this.table(name)).delete(`id IN (${ids.map(quote).join(', ')})`);
  }

  async search(name: string, vector: number[], limit: number): Promise<VectorHit[]> {
    const rows = (await (await this.table(name)).vectorSearch(vector).distanceType('cosine').select(['id', 'payload', '_distance']).limit(limit).toArray()) as Array<{
      id: string;
      payload: string;
      _distance: number;
    }>;
    return rows.map((row) => ({ id: row.id, score: 1 - row._distance, payload: JSON.parse(row.payload) as Record<string, unknown> }));
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
