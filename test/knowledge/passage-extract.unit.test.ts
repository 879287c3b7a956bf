import { expect } from 'chai';
import { relevantPassages } from '../../shared/knowledge/passage-extract.js';
import { sourcePrior } from '../../shared/knowledge/source-prior.js';

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
});
