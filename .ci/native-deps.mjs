// Loads and uses each dependency with a native binding on the Node.js that runs this script, so a
// Node upgrade that breaks one fails here, by name, before the suite: `node .ci/native-deps.mjs`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const checks = {
  'onnxruntime-node': async () => typeof (await import('onnxruntime-node')).InferenceSession.create,
  '@lancedb/lancedb': async () => {
    const lancedb = await import('@lancedb/lancedb');
    const dir = mkdtempSync(path.join(tmpdir(), 'aiops-native-'));
    try {
      const table = await (await lancedb.connect(dir)).createTable('probe', [{ id: 1, vector: [0.1, 0.2] }]);
      return `${await table.countRows()} row written and counted`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  sharp: async () => {
    const sharp = (await import('sharp')).default;
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    return `${png.length}-byte PNG made`;
  },
  'msgpackr-extract (through msgpackr)': async () => {
    const { isNativeAccelerationEnabled } = await import('msgpackr');
    if (!isNativeAccelerationEnabled) throw new Error('msgpackr runs without its native extension');
    return 'native acceleration on';
  },
};

for (const [name, check] of Object.entries(checks)) {
  try {
    console.log(`Node.js ${process.version}: ${name} loads (${await check()})`);
  } catch (error) {
    console.log(`Node.js ${process.version}: ${name} does not load: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
