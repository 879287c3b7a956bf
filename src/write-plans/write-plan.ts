import type { HttpMethod } from '../platform/platform.port.js';
import { sameValue } from './plan-values.js';

/*
 * A write plan: what one request to the platform will do, worked out with reads only before
 * anyone is asked to approve it. Plain JSON: it travels with the paused turn, the job's status,
 * its events, the audit log and the tool server's dry-run answer.
 */

/** What a write does to one object; `unchanged`: it sets every field to the value it already has. */
export type PlanEffect = 'create' | 'update' | 'delete' | 'unchanged' | 'other';

/** One field a write sets: in words as it is and as it will be, and the values compared. */
export interface FieldChange {
  /** The body field (`status`), or a key inside one (`custom_fields.owner`). */
  field: string;
  /** As it is now, in words (related objects by their display); absent for an object the write creates. */
  before?: string;
  after: string;
  /** The field already has this value. */
  unchanged?: true;
  /** What is compared, not shown: related objects by id, choices by value. Absent for a new object. */
  current?: unknown;
  planned: unknown;
}

/** One object the write creates, changes or deletes. */
export interface PlannedObject {
  /** Absent for an object the write creates. */
  id?: string;
  /** How a person knows it: the platform's display, or what names a new object. */
  display: string;
  /** Where it is read (its detail path); absent for a new object. */
  path?: string;
  /** As read for the plan: a later read that differs means someone changed the object since. */
  last_updated?: string | null;
  effect: PlanEffect;
  /** Each field the write sets (a create: every field given; a replacement: also each it resets to its default). */
  changes: FieldChange[];
  /** Every other writable field as read for the plan, compared (related objects by id), not shown: the read-back finds them so. */
  kept?: Record<string, unknown>;
}

/** Why a write cannot be made as asked. */
export interface PlanError {
  /** The body field (`status`, `[2].vid`) or query parameter (`params.site_name`) at fault, when one is. */
  field?: string;
  message: string;
  /** The values the description allows, for a value outside an enum's choices. */
  choices?: Array<string | number | boolean>;
}

export interface WritePlan {
  method: HttpMethod;
  /** The path as asked. */
  path: string;
  /** The operation as the description has it, `PATCH /api/dcim/devices/{id}/` ('' when it has none). */
  operation: string;
  /** The operation in words: "Update device leaf-1", "Delete 3 VLANs", "Create prefix 10.0.8.0/24". */
  summary: string;
  /** The objects the write touches; of a bulk write, the first WRITE_MAX_OBJECTS. */
  objects: PlannedObject[];
  /** How many objects the write touches, all of them. */
  count: number;
  /** Why it cannot be made as asked: a plan with errors is never put to a person. */
  errors: PlanError[];
  /** What else a person should know ("changes nothing", "fields not given take their defaults"). */
  notes: string[];
}

/** One error as a line: the field, what is wrong, the choices. */
export function planErrorText({ field, message, choices }: PlanError): string {
  return `${field ? `${field}: ` : ''}${message}${choices?.length ? ` (choices: ${choices.join(', ')})` : ''}`;
}

/** What the model is told of a plan with errors instead of the call's result: every error, with field names and choices. */
export function planRefusal(plan: WritePlan): string {
  return [
    `${plan.method} ${plan.path} was not made and not proposed to the user: its plan has errors. Correct the call and propose it again.`,
    ...plan.errors.map((error) => `- ${planErrorText(error)}`),
  ].join('\n');
}

/**
 * Why a plan approved earlier no longer holds, judged against the same write planned again now: an
 * object gone, one updated since (its `last_updated`), or a planned field whose value moved. Empty
 * when nothing changed.
 */
export function planDrift(approved: WritePlan, fresh: WritePlan): string[] {
  const reasons: string[] = [];
  const now = new Map(fresh.objects.filter((object) => object.id !== undefined).map((object) => [object.id, object]));
  for (const object of approved.objects) {
    if (object.id === undefined) continue;
    const again = now.get(object.id);
    if (!again) {
      reasons.push(`${object.display} could not be read again (deleted, or no longer visible)`);
      continue;
    }
    if (object.last_updated && again.last_updated && object.last_updated !== again.last_updated) {
      reasons.push(`${object.display} was changed since the plan (last updated ${object.last_updated}, now ${again.last_updated})`);
    }
    for (const change of object.changes) {
      const moved = again.changes.find((candidate) => candidate.field === change.field);
      if (moved && change.current !== undefined && !sameValue(change.current, moved.current)) {
        reasons.push(
          `${object.display}: ${change.field} is now ${moved.before ?? '(unknown)'}, it was ${change.before ?? '(unknown)'} when planned`,
        );
      }
    }
  }
  for (const error of fresh.errors) reasons.push(planErrorText(error));
  return [...new Set(reasons)];
}

/** A plan as lines a person reads: what it does, then each object with every field as before → after, then its notes. */
export function planText(plan: WritePlan): string {
  const lines = [`${plan.summary} (${plan.method} ${plan.path})`];
  for (const object of plan.objects) {
    lines.push(`- ${object.display}: ${object.effect}`);
    for (const change of object.changes) {
      if (change.unchanged) continue;
      lines.push(`    ${change.field}: ${change.before === undefined ? change.after : `${change.before} → ${change.after}`}`);
    }
  }
  if (plan.count > plan.objects.length) lines.push(`… and ${plan.count - plan.objects.length} more`);
  lines.push(...plan.notes.map((note) => `Note: ${note}`));
  return lines.join('\n');
}
