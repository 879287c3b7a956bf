import { expect } from 'chai';
import { loadOpenApiDocument, operationPermission } from '../../src/api/openapi.js';
import { KIND_NAMES, RECORD_KINDS, type RecordKindRow } from '../../src/records/record-kinds.js';

const ACTION_OF = { get: 'view', post: 'add', put: 'change', patch: 'change', delete: 'delete' } as const;

describe('the record kinds table', () => {
  const document = loadOpenApiDocument();

  for (const name of KIND_NAMES) {
    const row: RecordKindRow = RECORD_KINDS[name];
    it(`${name}: its paths are the document's, each operation requiring the permission the row names`, () => {
      for (const path of [row.path, `${row.path}{id}/`]) {
        const item = document.paths[path] as Record<string, object> | undefined;
        expect(item, path).to.not.equal(undefined);
        for (const [method, action] of Object.entries(ACTION_OF)) {
          // Records are created on the list only; a read-only kind is not written at all.
          const written = action === 'view' || (row.input !== undefined && !(method === 'post' && path !== row.path));
          const permission = written ? row.permissions[action] : undefined;
          expect(operationPermission(item?.[method]), `${method} ${path}`).to.equal(permission);
        }
      }
    });

    it(`${name}: its schemas are the document's`, () => {
      const schemas = document.components?.schemas ?? {};
      expect(schemas).to.have.property(row.schema);
      if (row.input) expect(schemas).to.have.property(row.input);
    });
  }
});
