import { createHash } from 'node:crypto';

/** Namespace of this service's point ids (a fixed random UUID). */
const NAMESPACE = Buffer.from('6f1d3c2a9b8e4f7d8c5a0e1b2d3f4a5b', 'hex');

/** A deterministic UUID (version 5) for a key, so re-indexing the same thing hits the same point. */
export function pointId(key: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(key).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A collection name safe for both stores: lower-case letters, digits and `_`. */
export function collectionName(...parts: Array<string | number>): string {
  return parts
    .map((part) =>
      String(part)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    )
    .filter(Boolean)
    .join('__');
}
