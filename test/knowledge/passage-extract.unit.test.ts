import { expect } from 'chai';
import { relevantPassages } from '../../src/knowledge/passage-extract.js';
import { DATA_PRIOR, sourcePrior } from '../../src/knowledge/source-prior.js';

describe('relevantPassages', () => {
  const doc = [
    '# Inventory',
    '',
    'The inventory can be used without any option when the environment is set up.',
    'It is one of the things that you will want to do first, and it is what most people do.',
    '',
    '## Options',
    '',
    '| option | environment variable |',
    '| nautobot_url | NAUTOBOT_URL |',
    '| nautobot_token | NAUTOBOT_TOKEN |',
    '',
    ...Array.from({ length: 30 }, (_, i) => `Filler paragraph ${i} about the weather and other things that do not matter.`),
  ].join('\n');

  it('keeps the run of lines that answers, whole, not lines full of function words', () => {
    const passage = relevantPassages(doc, 'Which environment variable holds the nautobot token?', 300);
    expect(passage.length).to.be.at.most(300);
    expect(passage).to.contain('| nautobot_token | NAUTOBOT_TOKEN |');
    expect(passage).to.contain('| option | environment variable |');
    expect(passage).to.not.contain('it is what most people do');
  });

  it('brings the lines right after the best run, where the answer to what matched is', () => {
    const code = [
      ...Array.from({ length: 20 }, (_, i) => `    step_${i} = prepare(${i})`),
      '        if not task.host.password:',
      '            error_msg = get_error_message("E1006", hostname=hostname)',
      '            raise NornirNautobotException(error_msg)',
      ...Array.from({ length: 20 }, (_, i) => `    other_${i} = finish(${i})`),
    ].join('\n');
    const passage = relevantPassages(code, 'What happens when the host has no password?', 200);
    expect(passage).to.contain('get_error_message("E1006"');
  });

  it('keeps a line that fits whole, and finds a name of code the question writes whole', () => {
    const options = [
      '# Options',
      ...Array.from({ length: 6 }, (_, i) => `* **option${i}** \`number\` - Default: \`${i}\` - A setting of the client.`),
      '* **maxRetries** `number` (optional) - How often a failed request is sent again before its error is given to the caller. Each attempt waits longer than the one before it, up to a ceiling. Default: `5`. Set it to `0` to turn retries off.',
    ].join('\n');
    const passage = relevantPassages(options, 'How many retries by default?', 300);
    expect(passage).to.contain('Default: `5`. Set it to `0` to turn retries off.');
    expect(passage).to.contain('* **maxRetries**');
    // The same words scattered in a shorter line do not make it the line that names the error.
    const errors = [
      'see also: und err, headers, timeout',
      '| UND_ERR_HEADERS_TIMEOUT | the server sent its headers too late |',
      'filler line one',
      'filler line two',
    ].join('\n');
    expect(relevantPassages(errors, 'When is UND_ERR_HEADERS_TIMEOUT raised?', 70)).to.contain('UND_ERR_HEADERS_TIMEOUT');
  });

  it('returns a text that fits as it is', () => {
    expect(relevantPassages('short text', 'anything', 300)).to.equal('short text');
  });

  it('marks gaps between passages taken from different places', () => {
    const text = ['alpha one', ...Array.from({ length: 40 }, () => 'filler filler filler filler'), 'beta two'].join('\n');
    expect(relevantPassages(text, 'alpha beta', 60)).to.equal('alpha one\n…\nbeta two');
  });
});

describe('sourcePrior', () => {
  it('weighs tests and data fixtures below documentation and library code', () => {
    expect(sourcePrior('docs/user/inventory.md')).to.equal(1);
    expect(sourcePrior('nornir_nautobot/plugins/inventory/nautobot.py')).to.equal(1);
    expect(sourcePrior('tests/unit/test_inventory.py')).to.be.below(1);
    expect(sourcePrior('pkg/inventory_test.py')).to.be.below(1);
    expect(sourcePrior('src/__tests__/x.test.ts')).to.be.below(1);
    expect(sourcePrior('tests/unit/fixtures/devices.json')).to.be.below(sourcePrior('tests/unit/test_inventory.py'));
  });

  it('counts a mock folder of library code as code, and mocks of tests as data fixtures', () => {
    expect(sourcePrior('lib/mock/mock-agent.js')).to.equal(1);
    expect(sourcePrior('src/mocks/server.ts')).to.equal(1);
    expect(sourcePrior('test/mock/responses.json')).to.equal(DATA_PRIOR);
    expect(sourcePrior('tests/unit/mocks/client.py')).to.equal(DATA_PRIOR);
    expect(sourcePrior('src/__mocks__/fs.ts')).to.equal(DATA_PRIOR);
  });
});
