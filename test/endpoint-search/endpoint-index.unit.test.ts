import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { LanceDbVectorStore } from '../../src/embeddings/adapters/lancedb-vector-store.adapter.js';
import type { Embedder } from '../../src/embeddings/embedder.port.js';
import { TransformersEmbedder } from '../../src/embeddings/adapters/transformers-embedder.adapter.js';
import { UnavailableError } from '../../src/kernel/errors.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { EndpointIndex } from '../../src/endpoint-search/endpoint-index.js';
import { writeTinyModel } from './support/tiny-model.js';

type Description = {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { summary?: string; operationId?: string }>>;
};

function description(): Description {
  return {
    openapi: '3.0.3',
    servers: [{ url: '/api' }],
    paths: {
      '/dcim/devices/': {
        get: { summary: 'List devices', operationId: 'dcim_devices_list' },
        post: { summary: 'Create a device', operationId: 'dcim_devices_create' },
      },
      '/dcim/devices/{id}/': { delete: { summary: 'Delete a device', operationId: 'dcim_devices_destroy' } },
      '/dcim/racks/': { get: { summary: 'List racks', operationId: 'dcim_racks_list' } },
      '/ipam/prefixes/': { get: { summary: 'List prefixes', operationId: 'ipam_prefixes_list' } },
    },
  };
}

/** Counts what goes through the real embedder. */
function counting(inner: Embedder): Embedder & { texts: number } {
  const wrapper = {
    model: inner.model,
    texts: 0,
    load: () => inner.load(),
    embed: async (texts: string[]) => {
      wrapper.texts += texts.length;
      return inner.embed(texts);
    },
  };
  return wrapper;
}

describe(EndpointIndex.name, () => {
  let dir: string;
  let modelDir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-index-'));
    modelDir = await writeTinyModel(path.join(dir, 'models', 'tiny-embedder'), {
      words: [
        'list',
        'create',
        'delete',
        'retrieve',
        'one',
        'device',
        'devices',
        'rack',
        'racks',
        'prefix',
        'prefixes',
        'router',
        'cabinet',
        'subnet',
        'dcim',
        'ipam',
        'get',
        'post',
        'api',
        'a',
      ],
      groups: [
        ['device', 'devices', 'router'],
        ['rack', 'racks', 'cabinet'],
        ['prefix', 'prefixes', 'subnet'],
      ],
    });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('embeds through transformers.js, searches hybrid, and re-embeds only what changed', async () => {
    let served = description();
    const store = await LanceDbVectorStore.open(path.join(dir, 'vectors'));
    const embedder = counting(new TransformersEmbedder({ model: 'unused', modelPath: modelDir, cacheDir: path.join(dir, 'cache') }));
    const deps = {
      fetchDescription: async () => structuredClone(served),
      platform: 'http://stub',
      dense: { embedder, store },
      logger: silentLogger(),
    };
    try {
      const index = new EndpointIndex(deps);
      const first = await index.start();
      expect(first).to.include({ endpointsIndexed: 5, embedded: 5, removed: 0, mode: 'hybrid' });
      const outcome = await index.find('add a router', 3, 1_000);
      expect(outcome.mode).to.equal('hybrid');
      expect(`${outcome.results[0]!.endpoint.method} ${outcome.results[0]!.endpoint.path}`).to.equal('POST /api/dcim/devices/');

      // Same description: nothing to embed, in this process or after a restart.
      expect(await index.refresh()).to.include({ unchanged: true, embedded: 0 });
      const restarted = new EndpointIndex(deps);
      expect(await restarted.start()).to.include({ endpointsIndexed: 5, embedded: 0, removed: 0 });

      // Changed summary, one endpoint added, one removed.
      served = description();
      served.paths['/dcim/racks/']!.get!.summary = 'List every rack (cabinet)';
      served.paths['/ipam/vlans/'] = { get: { summary: 'List VLANs', operationId: 'ipam_vlans_list' } };
      delete served.paths['/ipam/prefixes/'];
      const before = embedder.texts;
      const changed = await restarted.refresh();
      expect(changed).to.include({ endpointsIndexed: 5, embedded: 2, removed: 1, unchanged: false });
      expect(embedder.texts - before).to.equal(2);
      const keys = (await store.payloads(`endpoints__http_stub__tiny_embedder__16`)).map((p) => p.payload.key).sort();
      expect(keys).to.deep.equal([
        'DELETE /api/dcim/devices/{id}/',
        'GET /api/dcim/devices/',
        'GET /api/dcim/racks/',
        'GET /api/ipam/vlans/',
        'POST /api/dcim/devices/',
      ]);
    } finally {
      await store.close();
    }
  });

  it('runs lexical only when no model can be loaded, and says so', async () => {
    const store = await LanceDbVectorStore.open(path.join(dir, 'vectors-missing'));
    const embedder = new TransformersEmbedder({
      model: 'unused',
      modelPath: path.join(dir, 'no-such-model'),
      cacheDir: path.join(dir, 'cache'),
    });
    try {
      const index = new EndpointIndex({
        fetchDescription: async () => description(),
        platform: 'http://stub',
        dense: { embedder, store },
        logger: silentLogger(),
      });
      expect(await index.start()).to.include({ mode: 'lexical', embedded: 0 });
      const outcome = await index.find('show all cabinets', 2, 5_000);
      expect(outcome.mode).to.equal('lexical');
      expect(outcome.note).to.match(/lexical search only: no embedding model could be loaded/);
      expect(outcome.results[0]!.endpoint.key).to.equal('GET /api/dcim/racks/');
      expect(index.status()).to.include({ status: 'ready', mode: 'lexical' });
    } finally {
      await store.close();
    }
  });

  it('fails a search with a clear error while the description cannot be fetched, and recovers', async () => {
    let up = false;
    const index = new EndpointIndex({
      fetchDescription: async () => {
        if (!up) throw new UnavailableError('request to http://stub failed: connect ECONNREFUSED');
        return description();
      },
      platform: 'http://stub',
      logger: silentLogger(),
    });
    let error: unknown;
    await index.find('list devices', 1, 1_000).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(UnavailableError);
    expect(index.status().status).to.equal('failed');
    up = true;
    expect((await index.find('list devices', 1, 1_000)).results[0]!.endpoint.key).to.equal('GET /api/dcim/devices/');
  });
});
