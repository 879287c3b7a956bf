import type { EndpointDocument } from './endpoint-document.js';
import type { EndpointShape } from './endpoint-shape.js';
import { singular, words } from '../kernel/text.js';

interface Resource {
  /** The model its create answers with (`VMInterface`), '' for a resource nobody creates. */
  name: string;
  /** Namespace words (`virtualization`). */
  group: string[];
  /** What the model's name says beyond the resource's (`vm` of `VMInterface` at `/interfaces/`). */
  qualifier: string[];
  /** Body fields as joined singular words (`virtualmachine`, `device`). */
  fields: Set<string>;
}

/**
 * Resources of one name in several namespaces: `/dcim/interfaces/` answers `Interface`,
 * `/virtualization/interfaces/` answers `VMInterface`. The one whose model is named as its path is
 * the plain reading of the name; a variant (a model named with more words) is meant when the
 * request says so: its namespace, its model's extra words, or a field only it has (a VM
 * interface's `virtual_machine`). Read from the description, so it holds for any platform.
 */
export class ResourceVariants {
  /** Per endpoint index: the words that say a variant is meant, or undefined for a plain resource. */
  private readonly variants: Array<Set<string> | undefined>;

  constructor(entries: Array<{ endpoint: EndpointDocument; shape: EndpointShape }>) {
    const byPath = new Map<string, Resource>();
    const keyOf = ({ shape }: { shape: EndpointShape }) => `${shape.group.join(' ')}|${shape.resource.at(-1) ?? ''}`;
    for (const entry of entries) {
      const key = keyOf(entry);
      const known = byPath.get(key) ?? { name: '', group: entry.shape.group, qualifier: [], fields: new Set<string>() };
      for (const field of entry.endpoint.bodyFields) known.fields.add(words(field).map(singular).join(''));
      // The model a create answers with names the resource (a list may answer `DeviceWithConfigContext`);
      // a resource nobody creates (`/status/`) is no model of its own.
      if (entry.endpoint.method === 'POST' && entry.shape.kind === 'collection' && entry.endpoint.model) {
        const own = new Set(entry.shape.resource);
        known.name = entry.endpoint.model;
        known.qualifier = words(entry.endpoint.model)
          .map(singular)
          .filter((word) => !own.has(word));
      }
      byPath.set(key, known);
    }
    const byName = new Map<string, Array<Resource>>();
    for (const [key, resource] of byPath) {
      const name = key.split('|')[1]!;
      byName.set(name, [...(byName.get(name) ?? []), resource]);
    }
    this.variants = entries.map((entry) => {
      const resource = byPath.get(keyOf(entry))!;
      const plain = byName
        .get(entry.shape.resource.at(-1) ?? '')
        ?.find((other) => other !== resource && other.name && other.qualifier.length === 0);
      if (!plain || resource.qualifier.length === 0) return undefined;
      const ownFields = [...resource.fields].filter((field) => !plain.fields.has(field));
      return new Set([...resource.group, ...resource.qualifier, ...ownFields]);
    });
  }

  /** True when the endpoint is a variant the request does not say it means. */
  unasked(index: number, asked: Set<string>): boolean {
    const signs = this.variants[index];
    return signs !== undefined && ![...signs].some((term) => asked.has(term));
  }
}
