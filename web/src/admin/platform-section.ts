import type { Schemas } from '../../../src/api/openapi-types.js';
import { byId, el, say } from '../dom.js';
import { SectionFrame, type AdminContext, type AdminSection } from './section.js';

type PlatformCheck = Schemas['PlatformCheck'];

const PLATFORM_PATH = '/api/plugins/ai-ops/platform/';

/** The check's facts as rows of the section's table: what is set and what the description holds. */
function facts(check: PlatformCheck): [string, string][] {
  const { description } = check;
  return [
    ['Platform', check.is_self ? `This service's own API (${check.url})` : check.url],
    ['PLATFORM_ENV', check.env],
    ['PLATFORM_TOKEN', check.token_set ? 'set' : 'not set'],
    ['Writes', check.read_only ? 'refused (PLATFORM_READ_ONLY)' : 'allowed, after approval'],
    [
      'Description',
      description.state === 'ok'
        ? `read: ${description.operations ?? 0} operations, from ${description.source}`
        : `not read, from ${description.source}: ${description.error ?? 'unknown error'}`,
    ],
  ];
}

/**
 * The platform the agent acts on (superusers): which one, its description's state and operation
 * count, and, when it is this service itself, what to set to connect Nautobot or NetBox. Checked
 * once when the page opens and again on "Check now" only: a check reads the whole description,
 * which is too much for every refresh.
 */
export class PlatformSection implements AdminSection {
  private readonly frame: SectionFrame;
  private readonly table = byId('platform', HTMLTableElement);
  private readonly connect = byId('platform-connect', HTMLElement);
  private readonly button = byId('platform-check', HTMLButtonElement);
  private checked = false;

  constructor(private readonly context: AdminContext) {
    this.frame = new SectionFrame(context.access, {
      name: 'platform',
      permission: 'superuser',
      what: 'see the platform the agent acts on',
    });
    byId('platform-section', HTMLElement).hidden = !this.frame.readable;
    this.button.addEventListener('click', () => void this.check());
  }

  load(): Promise<void> {
    return this.checked ? Promise.resolve() : this.check();
  }

  private check(): Promise<void> {
    return this.frame.run(async () => {
      this.button.disabled = true;
      try {
        const check = await this.context.api.get<PlatformCheck>(PLATFORM_PATH);
        this.checked = true;
        this.table.tBodies[0]!.replaceChildren(
          ...facts(check).map(([name, value]) => el('tr', {}, el('th', { scope: 'row' }, name), el('td', {}, value))),
        );
        say(this.connect, check.to_connect ? `The platform is this service itself: ${check.to_connect}.` : '');
        this.context.announce(`Platform checked: description ${check.description.state === 'ok' ? 'read' : 'not read'}.`);
      } finally {
        this.button.disabled = false;
      }
    });
  }
}
