import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { attribute, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { NO_SERVICE_ON_DEFAULTS, runAiops } from '../support/processes.js';
import { createRemote } from './support/git-remote.js';

/** An index run is a trace of its own: `aiops kb update` run as an operator runs it, exporting to a receiver. */
describe('Traces of index runs', function () {
  this.timeout(60_000);
  let root: string;
  let receiver: OtlpReceiver;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-trace-'));
    createRemote(root, 'net/routing', { 'docs/routing.md': '# Routing\n\nEvery OSPF area attaches to the backbone.\n' });
    receiver = await startOtlpReceiver();
  });
  after(async () => {
    await receiver.close();
    await rm(root, { recursive: true, force: true });
  });

  it('makes a root span of each run, naming the repository and what changed', async () => {
    const env = {
      DATA_DIR: path.join(root, 'data'),
      KB_LOCAL_ROOTS: path.join(root, 'remotes'),
      KB_OFFICIAL_REPOS: 'false',
      EMBEDDING_MODEL: 'none',
      ...NO_SERVICE_ON_DEFAULTS,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    };
    const added = await runAiops(['kb', 'add', path.join(root, 'remotes', 'net', 'routing.git')], env, root);
    expect(added.code, added.stderr).to.equal(0);
    for (let run = 0; run < 2; run++) {
      const update = await runAiops(['kb', 'update'], env, root);
      expect(update.code, update.stdout + update.stderr).to.equal(0);
    }
    // Each process exported its spans before it ended.
    const runs = receiver.spans.filter((span) => span.name === 'kb-index');
    expect(runs).to.have.length(2);
    expect(new Set(runs.map((span) => span.traceId)).size).to.equal(2);
    for (const span of runs) {
      expect(span.parentSpanId || undefined).to.equal(undefined);
      expect(attribute(span, 'aiops.kb.repository')).to.equal('net/routing');
    }
    expect(runs.map((span) => [attribute(span, 'aiops.kb.status'), Number(attribute(span, 'aiops.kb.files_changed'))])).to.deep.equal([
      ['indexed', 1],
      ['unchanged', 0],
    ]);
    expect(Number(attribute(runs[0]!, 'aiops.kb.documents'))).to.be.greaterThan(0);
  });
});
