import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { BatchValidationError, NotFoundError, PermissionDeniedError, ValidationError } from '../../src/kernel/errors.js';
import type { BaseRecord } from '../../src/records/record-collection.port.js';
import { MAX_RECORDS_PER_KIND, RecordService, type RecordKind } from '../../src/records/record-service.js';
import { MemoryRecordCollection } from '../support/fakes/memory-record-collection.js';
import { OPERATOR, type Actor } from '../../src/records/auth/permissions.js';

interface WidgetFields {
  name: string;
  size: number;
  is_default: boolean;
}
/** `revision` is read-only: the kind carries it over from the record being replaced. */
type Widget = BaseRecord & Omit<WidgetFields, 'is_default'> & { revision: number };
type WidgetView = Widget & { display: string; is_default: boolean; view: 'list' | 'detail' };

const widgetKind: RecordKind<Widget, WidgetFields, WidgetView> = {
  label: 'widget',
  flagField: 'is_default',
  defaults: () => ({ size: 1, is_default: false }),
  writable: ({ name, size }, flagged) => ({ name, size, is_default: flagged }),
  toRecord: async ({ name, size }, base, previous) => {
    if (size < 0) throw ValidationError.field('size', 'Must be at least 0.');
    return { ...base, name, size, revision: (previous?.revision ?? 0) + 1 };
  },
  present: async (records, flagHolder, view) =>
    records.map((record) => ({ ...record, display: record.name.toUpperCase(), is_default: record.id === flagHolder, view })),
  filter: async (filters) => (record, flagged) =>
    (filters.size === undefined || record.size === filters.size) && (filters.is_default === undefined || flagged === filters.is_default),
};

const T0 = new Date('2026-03-01T10:00:00.000Z');
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe(RecordService.name, () => {
  let widgets: MemoryRecordCollection<Widget>;
  let clock: Date;
  let sut: RecordService<Widget, WidgetFields, WidgetView>;

  const failure = async (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('should have failed'),
      (error: unknown) => error,
    );
  const fieldErrors = async (promise: Promise<unknown>) => {
    const error = await failure(promise);
    expect(error).to.be.instanceOf(ValidationError);
    return (error as ValidationError).fields;
  };

  beforeEach(() => {
    widgets = new MemoryRecordCollection('name');
    clock = T0;
    sut = new RecordService(widgetKind, widgets, () => clock);
  });

  describe('create', () => {
    it('fills in the defaults, stamps both times from the clock and shows the stored record', async () => {
      const shown = await sut.create({ name: 'alpha' } as WidgetFields, OPERATOR);
      expect(shown.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(shown).to.deep.include({
        name: 'alpha',
        size: 1,
        revision: 1,
        created: T0.toISOString(),
        last_updated: T0.toISOString(),
        display: 'ALPHA',
        is_default: false,
        view: 'detail',
      });
      expect(await widgets.get(shown.id)).to.deep.equal({
        id: shown.id,
        created: T0.toISOString(),
        last_updated: T0.toISOString(),
        name: 'alpha',
        size: 1,
        revision: 1,
      });
    });

    it('keeps at most MAX_RECORDS_PER_KIND records of a kind, and takes more once some are deleted', async () => {
      for (let i = 0; i < MAX_RECORDS_PER_KIND; i++) {
        await widgets.insert({
          id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          created: T0.toISOString(),
          last_updated: T0.toISOString(),
          name: `w${i}`,
          size: 1,
          revision: 1,
        });
      }
      expect(await fieldErrors(sut.create({ name: 'one-too-many' } as WidgetFields, OPERATOR))).to.deep.equal({
        non_field_errors: [`There are already ${MAX_RECORDS_PER_KIND} records of this kind (widget), the most kept: delete some first.`],
      });
      await sut.delete('00000000-0000-4000-8000-000000000000', OPERATOR);
      expect((await sut.create({ name: 'one-too-many' } as WidgetFields, OPERATOR)).name).to.equal('one-too-many');
    });

    it('refuses a name already taken, naming the field', async () => {
      await sut.create({ name: 'alpha', size: 1, is_default: false }, OPERATOR);
      expect(await fieldErrors(sut.create({ name: 'alpha', size: 2, is_default: false }, OPERATOR))).to.deep.equal({
        name: ["widget with this name already exists: 'alpha'."],
      });
    });

    it('refuses a write that is not an object of fields or has no name, whatever the edge checked', async () => {
      expect(await fieldErrors(sut.create(null as unknown as WidgetFields, OPERATOR))).to.deep.equal({
        non_field_errors: ['Expected an object of fields.'],
      });
      expect(await fieldErrors(sut.create([] as unknown as WidgetFields, OPERATOR))).to.deep.equal({
        non_field_errors: ['Expected an object of fields.'],
      });
      expect(await fieldErrors(sut.create({ name: '  ' } as WidgetFields, OPERATOR))).to.deep.equal({ name: ['This field is required.'] });
      expect((await widgets.all()).records).to.deep.equal([]);
    });

    it("applies the kind's rules across fields", async () => {
      expect(await fieldErrors(sut.create({ name: 'neg', size: -1, is_default: false }, OPERATOR))).to.deep.equal({
        size: ['Must be at least 0.'],
      });
    });

    it('gives the exclusive flag to the last record created with it', async () => {
      const first = await sut.create({ name: 'first', size: 1, is_default: true }, OPERATOR);
      const second = await sut.create({ name: 'second', size: 1, is_default: true }, OPERATOR);
      expect(await widgets.flagHolder()).to.equal(second.id);
      expect((await sut.get(first.id)).is_default).to.equal(false);
    });
  });

  describe('read', () => {
    it('lists a filtered page, counting every match, shown as a list', async () => {
      for (const [name, size] of [
        ['a', 1],
        ['b', 2],
        ['c', 2],
        ['d', 2],
      ] as const)
        await sut.create({ name, size, is_default: name === 'd' }, OPERATOR);
      const page = await sut.list({ limit: 2, offset: 1, filters: { size: 2, is_default: undefined } });
      expect(page.count).to.equal(3);
      expect(page.results.map((widget) => [widget.name, widget.view])).to.deep.equal([
        ['b', 'list'],
        ['c', 'list'],
      ]);
      expect((await sut.list({ limit: 10, offset: 0, filters: { is_default: true } })).results.map((widget) => widget.name)).to.deep.equal([
        'd',
      ]);
      expect((await sut.list({ limit: 10, offset: 0, filters: { size: '' } })).count, 'empty filters match all').to.equal(4);
    });

    it('answers not found for an unknown id and for an id that is not a UUID, without asking the store', async () => {
      expect(await failure(sut.get(UNKNOWN_ID))).to.be.instanceOf(NotFoundError);
      widgets.get = () => expect.fail('the store is not asked for a malformed id');
      widgets.getWithFlagHolder = () => expect.fail('the store is not asked for a malformed id');
      const error = await failure(sut.get('alpha'));
      expect(error).to.be.instanceOf(NotFoundError);
      expect((error as Error).message).to.equal('No widget matches the given query.');
      expect(await failure(sut.load('../alpha'))).to.be.instanceOf(NotFoundError);
    });

    it('loads the stored record and finds one by name', async () => {
      const created = await sut.create({ name: 'alpha', size: 3, is_default: false }, OPERATOR);
      expect(await sut.load(created.id)).to.deep.include({ name: 'alpha', size: 3, revision: 1 });
      expect((await sut.getByName('alpha'))?.id).to.equal(created.id);
      expect(await sut.getByName('beta')).to.equal(null);
    });
  });

  describe('update', () => {
    it('patches onto the stored record, keeping created and what the kind carries over', async () => {
      const created = await sut.create({ name: 'alpha', size: 3, is_default: true }, OPERATOR);
      clock = new Date('2026-03-01T11:00:00.000Z');
      const shown = await sut.update(created.id, { size: 4 }, 'patch', OPERATOR);
      expect(shown).to.deep.include({
        name: 'alpha',
        size: 4,
        revision: 2,
        created: T0.toISOString(),
        last_updated: clock.toISOString(),
        is_default: true,
      });
    });

    it('replaces from the defaults (PUT), and a flag left out is given up', async () => {
      const created = await sut.create({ name: 'alpha', size: 3, is_default: true }, OPERATOR);
      const shown = await sut.update(created.id, { name: 'alpha' }, 'replace', OPERATOR);
      expect(shown).to.deep.include({ size: 1, is_default: false, revision: 2 });
      expect(await widgets.flagHolder()).to.equal(null);
    });

    it('takes or gives up the flag only when a patch names it', async () => {
      const created = await sut.create({ name: 'alpha', size: 3, is_default: false }, OPERATOR);
      await sut.update(created.id, { is_default: true }, 'patch', OPERATOR);
      expect(await widgets.flagHolder()).to.equal(created.id);
      await sut.update(created.id, { size: 5 }, 'patch', OPERATOR);
      expect(await widgets.flagHolder()).to.equal(created.id);
      await sut.update(created.id, { is_default: false }, 'patch', OPERATOR);
      expect(await widgets.flagHolder()).to.equal(null);
    });

    it('leaves the flag with whoever holds it now when a patch does not name it', async () => {
      const alpha = await sut.create({ name: 'alpha', size: 3, is_default: true }, OPERATOR);
      const beta = await sut.create({ name: 'beta', size: 3, is_default: false }, OPERATOR);
      widgets.beforeSwap = async () => {
        widgets.beforeSwap = undefined;
        await sut.update(beta.id, { is_default: true }, 'patch', OPERATOR);
      };
      await sut.update(alpha.id, { size: 4 }, 'patch', OPERATOR);
      expect(await widgets.flagHolder()).to.equal(beta.id);
    });

    it('loses no concurrent update: a record changed meanwhile is read again and the patch applied on top', async () => {
      const created = await sut.create({ name: 'alpha', size: 3, is_default: false }, OPERATOR);
      widgets.beforeSwap = (expected) => {
        widgets.beforeSwap = undefined;
        widgets.put({ ...expected, name: 'renamed elsewhere', revision: 7 });
      };
      const shown = await sut.update(created.id, { size: 9 }, 'patch', OPERATOR);
      expect(shown).to.deep.include({ name: 'renamed elsewhere', size: 9, revision: 8 });
      expect(widgets.swaps).to.equal(2);
    });

    it('gives up under endless contention, asking for a retry', async () => {
      const created = await sut.create({ name: 'alpha', size: 3, is_default: false }, OPERATOR);
      let edits = 0;
      widgets.beforeSwap = (expected) => widgets.put({ ...expected, revision: 100 + ++edits });
      expect(await fieldErrors(sut.update(created.id, { size: 4 }, 'patch', OPERATOR))).to.deep.equal({
        non_field_errors: ['The widget is being changed by others; retry.'],
      });
      expect(edits).to.equal(20);
    });

    it('refuses a rename to a name already taken', async () => {
      await sut.create({ name: 'alpha', size: 1, is_default: false }, OPERATOR);
      const beta = await sut.create({ name: 'beta', size: 1, is_default: false }, OPERATOR);
      expect(await fieldErrors(sut.update(beta.id, { name: 'alpha' }, 'patch', OPERATOR))).to.have.property('name');
      expect((await sut.get(beta.id)).name).to.equal('beta');
    });

    it('answers not found for a record deleted before or while it is updated', async () => {
      expect(await failure(sut.update(UNKNOWN_ID, { size: 1 }, 'patch', OPERATOR))).to.be.instanceOf(NotFoundError);
      const created = await sut.create({ name: 'alpha', size: 3, is_default: false }, OPERATOR);
      widgets.beforeSwap = async (expected) => {
        widgets.beforeSwap = undefined;
        await widgets.remove(expected.id);
      };
      expect(await failure(sut.update(created.id, { size: 4 }, 'patch', OPERATOR))).to.be.instanceOf(NotFoundError);
    });
  });

  it('deletes a record once; unknown and malformed ids are not found', async () => {
    const created = await sut.create({ name: 'alpha', size: 3, is_default: false }, OPERATOR);
    await sut.delete(created.id, OPERATOR);
    expect(await widgets.get(created.id)).to.equal(null);
    expect(await failure(sut.delete(created.id, OPERATOR))).to.be.instanceOf(NotFoundError);
    expect(await failure(sut.delete('alpha', OPERATOR))).to.be.instanceOf(NotFoundError);
  });
  describe('writing a list, all or nothing', () => {
    const USER: Actor = { superuser: false };
    /** Widgets over 10 and deleting 'keep' are superuser business, as destinations are for models. */
    const guardedKind: RecordKind<Widget, WidgetFields, WidgetView> = {
      ...widgetKind,
      admit: async ({ next, actor }) => {
        if (!actor.superuser && next.size > 10) throw new PermissionDeniedError('size: only a superuser may make a widget over 10.');
        return next;
      },
      admitDelete: (record, actor) => {
        if (!actor.superuser && record.name === 'keep') throw new PermissionDeniedError('Only a superuser may delete keep.');
      },
    };
    const items = async (promise: Promise<unknown>) => {
      const error = await failure(promise);
      expect(error).to.be.instanceOf(BatchValidationError);
      return (error as BatchValidationError).items;
    };
    const stored = async () => (await widgets.all()).records.map(({ name, size }) => [name, size]);

    beforeEach(() => {
      sut = new RecordService(guardedKind, widgets, () => clock);
    });

    it('creates every record of the list, shown as details, the flag with the one that asks for it', async () => {
      const shown = await sut.createMany(
        [
          { name: 'a', size: 1, is_default: false },
          { name: 'b', size: 2, is_default: true },
        ],
        OPERATOR,
      );
      expect(shown.map(({ name, is_default, view }) => [name, is_default, view])).to.deep.equal([
        ['a', false, 'detail'],
        ['b', true, 'detail'],
      ]);
      expect(await widgets.flagHolder()).to.equal(shown[1]!.id);
    });

    it("creates nothing when an item breaks a rule, saying each item's problems in the list's order", async () => {
      await sut.create({ name: 'taken', size: 1, is_default: false }, OPERATOR);
      const problems = await items(
        sut.createMany(
          [
            { name: 'fine', size: 1, is_default: true },
            { name: 'taken', size: 1, is_default: false },
            { name: 'neg', size: -1, is_default: false },
            { name: 'fine', size: 1, is_default: true },
          ],
          OPERATOR,
        ),
      );
      expect(problems).to.deep.equal([
        {},
        { name: ["widget with this name already exists: 'taken'."] },
        { size: ['Must be at least 0.'] },
        {
          name: ["widget with this name comes earlier in the list: 'fine'."],
          is_default: ['Only one widget of the list may set is_default.'],
        },
      ]);
      expect(await stored()).to.deep.equal([['taken', 1]]);
    });

    it('refuses the whole list as the single write would when one item is not for this writer', async () => {
      const error = await failure(
        sut.createMany(
          [
            { name: 'small', size: 1, is_default: false },
            { name: 'big', size: 11, is_default: false },
          ],
          USER,
        ),
      );
      expect(error).to.be.instanceOf(PermissionDeniedError);
      expect((error as Error).message).to.equal(
        ((await failure(sut.create({ name: 'big', size: 11, is_default: false }, USER))) as Error).message,
      );
      expect(await stored()).to.deep.equal([]);
    });

    it('keeps at most MAX_RECORDS_PER_KIND records of a kind', async () => {
      for (let i = 0; i < MAX_RECORDS_PER_KIND - 1; i++) {
        await widgets.insert({
          id: randomUUID(),
          created: T0.toISOString(),
          last_updated: T0.toISOString(),
          name: `w${i}`,
          size: 1,
          revision: 1,
        });
      }
      expect(
        await fieldErrors(
          sut.createMany(
            [
              { name: 'x', size: 1, is_default: false },
              { name: 'y', size: 1, is_default: false },
            ],
            OPERATOR,
          ),
        ),
      ).to.deep.equal({
        non_field_errors: [
          `There are ${MAX_RECORDS_PER_KIND - 1} records of this kind (widget): 2 more would pass ${MAX_RECORDS_PER_KIND}, the most kept; delete some first.`,
        ],
      });
    });

    it('updates every record of the list: patches, replacements, names traded and the flag moved', async () => {
      const a = await sut.create({ name: 'a', size: 1, is_default: true }, OPERATOR);
      const b = await sut.create({ name: 'b', size: 2, is_default: false }, OPERATOR);
      const patched = await sut.updateMany(
        [
          { id: a.id, fields: { name: 'b', is_default: false } },
          { id: b.id, fields: { name: 'a', is_default: true } },
        ],
        'patch',
        OPERATOR,
      );
      expect(patched.map(({ name, size, is_default, revision }) => [name, size, is_default, revision])).to.deep.equal([
        ['b', 1, false, 2],
        ['a', 2, true, 2],
      ]);
      const replaced = await sut.updateMany([{ id: a.id, fields: { name: 'b' } }], 'replace', OPERATOR);
      expect(replaced.map(({ size, is_default }) => [size, is_default])).to.deep.equal([[1, false]]);
      expect(await widgets.flagHolder()).to.equal(b.id);
    });

    it('updates nothing when an item breaks a rule, names a record twice or names one that is not there', async () => {
      const a = await sut.create({ name: 'a', size: 1, is_default: false }, OPERATOR);
      const b = await sut.create({ name: 'b', size: 2, is_default: false }, OPERATOR);
      await sut.create({ name: 'c', size: 3, is_default: false }, OPERATOR);
      const before = await stored();
      expect(
        await items(
          sut.updateMany(
            [
              { id: a.id, fields: { size: 5 } },
              { id: b.id, fields: { name: 'c' } },
            ],
            'patch',
            OPERATOR,
          ),
        ),
      ).to.deep.equal([{}, { name: ["widget with this name already exists: 'c'."] }]);
      expect(
        await items(
          sut.updateMany(
            [
              { id: a.id, fields: { size: 5 } },
              { id: a.id, fields: { size: 6 } },
            ],
            'patch',
            OPERATOR,
          ),
        ),
      ).to.deep.equal([{}, { id: ['This record is already named earlier in the list.'] }]);
      const missing = await failure(
        sut.updateMany(
          [
            { id: a.id, fields: { size: 5 } },
            { id: UNKNOWN_ID, fields: { size: 6 } },
          ],
          'patch',
          OPERATOR,
        ),
      );
      expect(missing).to.be.instanceOf(NotFoundError);
      expect(
        await failure(
          sut.updateMany(
            [
              { id: a.id, fields: { size: 5 } },
              { id: b.id, fields: { size: 50 } },
            ],
            'patch',
            USER,
          ),
        ),
      ).to.be.instanceOf(PermissionDeniedError);
      expect(await stored()).to.deep.equal(before);
    });

    it('loses no concurrent update: a list whose records changed meanwhile is read again and applied on top', async () => {
      const a = await sut.create({ name: 'a', size: 1, is_default: false }, OPERATOR);
      widgets.beforeBatch = () => {
        widgets.beforeBatch = undefined;
        widgets.put({ ...(JSON.parse(JSON.stringify(a)) as Widget), name: 'renamed elsewhere', revision: 7 });
      };
      const [shown] = await sut.updateMany([{ id: a.id, fields: { size: 9 } }], 'patch', OPERATOR);
      expect(shown).to.deep.include({ name: 'renamed elsewhere', size: 9, revision: 8 });
    });

    it('deletes every record of the list, or none', async () => {
      const a = await sut.create({ name: 'a', size: 1, is_default: true }, OPERATOR);
      const keep = await sut.create({ name: 'keep', size: 1, is_default: false }, OPERATOR);
      const c = await sut.create({ name: 'c', size: 1, is_default: false }, OPERATOR);
      const before = await stored();
      expect(await failure(sut.deleteMany([a.id, keep.id], USER))).to.be.instanceOf(PermissionDeniedError);
      expect(await failure(sut.deleteMany([a.id, UNKNOWN_ID], OPERATOR))).to.be.instanceOf(NotFoundError);
      expect(await items(sut.deleteMany([a.id, a.id], OPERATOR))).to.deep.equal([
        {},
        { id: ['This record is already named earlier in the list.'] },
      ]);
      expect(await stored()).to.deep.equal(before);
      await sut.deleteMany([a.id, c.id], USER);
      expect(await stored()).to.deep.equal([['keep', 1]]);
      expect(await widgets.flagHolder()).to.equal(null);
    });
  });
});
