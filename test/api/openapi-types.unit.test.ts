import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { OPENAPI_TYPES_FILE, renderOpenApiTypes } from '../../src/api/openapi-types.generator.js';

describe('generated OpenAPI types', function () {
  this.timeout(30_000);

  it('are what api/openapi.yaml gives today (else run npm run generate:types)', async () => {
    const committed = await readFile(OPENAPI_TYPES_FILE, 'utf8');
    expect(committed === (await renderOpenApiTypes()), 'api/openapi-types.ts is stale: run npm run generate:types').to.equal(true);
  });
});
