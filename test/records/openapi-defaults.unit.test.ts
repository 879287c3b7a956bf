import { expect } from 'chai';
import { loadOpenApiDocument, resolved } from '../../src/api/openapi.js';
import { llmModelKind } from '../../src/records/llm-model.js';
import { mcpServerDefaults, NEW_SERVER_STATUS } from '../../src/records/mcp-server.js';
import { NO_EXCEPTIONS } from '../../src/records/record-write-rules.js';
import { secretKind } from '../../src/records/secret.js';

/** The `x-aiops-default` of each property of a writable schema: what write plans show a field left out becoming. */
function declaredDefaults(schema: string): Record<string, unknown> {
  const document = loadOpenApiDocument();
  const properties = resolved(document, document.components?.schemas?.[schema]).properties as Record<string, Record<string, unknown>>;
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, property]) => ('x-aiops-default' in property ? [[name, property['x-aiops-default']]] : [])),
  );
}

describe('the defaults the document declares for write plans', () => {
  it('are those a create or a replacement takes', () => {
    expect(declaredDefaults('LLMModelInput')).to.deep.equal(llmModelKind({ rules: NO_EXCEPTIONS }).defaults());
    // The record's address is `url` inside, `server_url` on the API (a record's `url` is its own API URL).
    const { url: serverUrl, ...serverDefaults } = mcpServerDefaults();
    expect(declaredDefaults('MCPServerInput')).to.deep.equal({ status: NEW_SERVER_STATUS, ...serverDefaults, server_url: serverUrl });
    expect(declaredDefaults('SecretInput')).to.deep.equal(secretKind({ rules: NO_EXCEPTIONS, secretUsers: async () => [] }).defaults());
  });
});
