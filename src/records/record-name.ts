import { remove as removeConfusables } from 'confusables';
import { ValidationError } from '../kernel/errors.js';

/** Characters that show nothing or steer how text is shown (control codes, zero-width and bidi marks). */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;
/** Letters and signs of one upright stroke, which many fonts draw alike (i, l, 1, |, and I once lowercased). */
const ONE_STROKE = /[il1|]/g;
/** Everything but letters and digits: dashes, dots, spaces, symbols, and modifier letters that draw as a dash (ー). */
const NOT_READ = /[^\p{L}\p{N}]|\p{Lm}/gu;

/**
 * A record's name is shown in lists, approval cards and the audit log, where it has to say which
 * record it is: a name with a character that shows nothing (or reorders what follows) reads as
 * another record's.
 */
export function checkRecordName(name: string): void {
  if (INVISIBLE.test(name)) throw ValidationError.field('name', 'Names may not contain control, zero-width or direction characters.');
}

/**
 * How a name reads, for comparing it with a reserved one: compatibility forms folded (NFKC), letters
 * of other scripts that look like Latin ones replaced by them, case ignored, the one-stroke letters
 * taken as one, and only letters and digits kept. `built‐in` (U+2010), `Built-In`, `buiIt-in`
 * (a capital I) and `built in` all read as `built-in`.
 */
function nameSkeleton(name: string): string {
  return removeConfusables(name.normalize('NFKC')).toLowerCase().replace(ONE_STROKE, 'l').replace(NOT_READ, '');
}

/** Whether `name` reads as `reserved` (see nameSkeleton). */
export function readsAs(name: string, reserved: string): boolean {
  return nameSkeleton(name) === nameSkeleton(reserved);
}
