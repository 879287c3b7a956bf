import { remove as removeConfusables } from 'confusables';
import { ValidationError } from '../kernel/errors.js';

/** Characters that show nothing or steer how text is shown (control codes, zero-width and bidi marks). */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;
/** Every dash and hyphen of Unicode, and the minus sign. */
const DASHES = /[\p{Pd}\u2212]/gu;

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
 * of other scripts that look like Latin ones replaced by them, every dash as '-', spaces and
 * invisible characters dropped, case ignored. `built‐in` (U+2010) and `Built-In` read as `built-in`.
 */
export function nameSkeleton(name: string): string {
  return removeConfusables(name.normalize('NFKC'))
    .replace(DASHES, '-')
    .replace(/[\s\p{Cc}\p{Cf}]/gu, '')
    .toLowerCase();
}
