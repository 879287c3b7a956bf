import { expect } from 'chai';
import { chunkFile } from '../../src/knowledge/chunkers.js';

const SETTINGS = { maxChars: 600, overlapChars: 100 };

/** A method with a doc comment and a body with a blank line inside, about `chars` characters long. */
const method = (name: string, chars: number) => [
  '  /**',
  `   * ${name}: what it does, said once.`,
  '   */',
  `  ${name} (value) {`,
  `    const first = ${JSON.stringify('x'.repeat(Math.max(0, chars - 120)))}`,
  '',
  '    return first + value',
  '  }',
];

describe('chunkFile: JavaScript and TypeScript', () => {
  it('splits a class too long for one chunk between its members, each whole with its doc comment and the class as context', () => {
    const text = [
      "'use strict'",
      '',
      "const { Readable } = require('node:stream')",
      '',
      'class Queue extends Readable {',
      ...method('push', 250),
      '',
      ...method('shift', 250),
      '',
      ...method('peek', 250),
      '}',
      '',
      'module.exports = Queue',
    ].join('\n');
    const { fileType, chunks } = chunkFile('lib/queue.js', text, SETTINGS);
    expect(fileType).to.equal('javascript');
    for (const name of ['push', 'shift', 'peek']) {
      const holding = chunks.filter(({ content }) => content.includes(`${name} (value) {`));
      expect(holding, name).to.have.length(1);
      expect(holding[0]!.content).to.contain(`* ${name}: what it does, said once.`);
      expect(holding[0]!.context).to.equal('class Queue extends Readable');
    }
    for (const chunk of chunks) expect(chunk.content.length).to.be.at.most(SETTINGS.maxChars);
  });

  it('keeps small declarations together and a declaration with the comment right above it', () => {
    const text = [
      '// How long a socket may idle, in milliseconds.',
      'const IDLE_TIMEOUT = 4000',
      '',
      '/** The largest queue, in requests. */',
      'export const MAX_QUEUE = 2048',
      '',
      'export function idle (socket: Socket): boolean {',
      '  return socket.idleFor > IDLE_TIMEOUT',
      '}',
    ].join('\n');
    const { fileType, chunks } = chunkFile('src/limits.ts', text, SETTINGS);
    expect(fileType).to.equal('typescript');
    expect(chunks).to.have.length(1);
    expect(chunks[0]!.content).to.equal(text);
  });

  it("splits a long interface between its fields, never inside a field's doc comment", () => {
    const fields = Array.from({ length: 12 }, (_, i) => [
      `    /** Option ${i}: a setting of the dispatcher that is described in a long sentence. Default: \`${i}\` */`,
      `    option${i}?: number;`,
    ]).flat();
    const text = ['declare namespace Dispatcher {', '  export interface DispatchOptions {', ...fields, '  }', '}'].join('\n');
    const { chunks } = chunkFile('types/dispatcher.d.ts', text, SETTINGS);
    expect(chunks.length).to.be.above(1);
    for (const chunk of chunks) {
      expect(chunk.context).to.equal('declare namespace Dispatcher > export interface DispatchOptions');
      expect(chunk.content.trimStart()).to.not.match(/^(?:\*|option)/);
    }
    for (let i = 0; i < 12; i++)
      expect(chunks.filter(({ content }) => content.includes(`Option ${i}:`) && content.includes(`option${i}?: number;`))).to.have.length(
        1,
      );
  });
});
