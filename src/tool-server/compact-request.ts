import type { EndpointDocument } from '../endpoint-search/endpoint-document.js';
import type { ApiRequest, ApiResult, PlatformClient } from '../platform/platform.port.js';
import { compactResponse } from './response-compaction.js';

export interface CompactRequest extends ApiRequest {
  /** Keep only these fields of each object; passed to the platform as `fields` where its description offers it. */
  fields?: string[];
  /** Identifying fields only; passed to the platform as `brief` where its description offers it. */
  brief?: boolean;
}

export interface CompactApiResult extends ApiResult {
  /** Results in `data`, for a list answer. */
  returned?: number;
  /** Where the results not shown start. */
  nextOffset?: number;
  note?: string;
}

export interface CompactRequestDeps {
  client: PlatformClient;
  /** The endpoint a method and path belong to, to know which of `brief` and `fields` the platform takes. */
  operation: (method: string, path: string) => Promise<EndpointDocument | undefined>;
  budgetChars: number;
}

/**
 * Sends one request and fits its answer to the budget (see response-compaction.ts). `brief` and
 * `fields` go to the platform only where its description declares those query parameters, and are
 * applied to the answer either way.
 */
export async function requestCompactly(deps: CompactRequestDeps, request: CompactRequest): Promise<CompactApiResult> {
  const { fields, brief, ...plain } = request;
  const params = { ...(plain.params ?? {}) };
  if (request.method === 'GET' && (brief || fields?.length)) {
    const declared = new Set((await deps.operation(request.method, request.path).catch(() => undefined))?.parameters ?? []);
    if (brief && declared.has('brief') && params.brief === undefined) params.brief = true;
    if (fields?.length && declared.has('fields') && params.fields === undefined) params.fields = fields.join(',');
  }
  const result = await deps.client.request({ ...plain, ...(Object.keys(params).length ? { params } : {}) });
  if (result.truncated) {
    return {
      ...result,
      note: 'the platform answered more than PLATFORM_MAX_RESPONSE_BYTES: ask for fewer results (params limit), fewer fields (fields, brief) or narrow with filters',
    };
  }
  const offset = Number(params.offset ?? 0);
  const compact = compactResponse(result.data, {
    budgetChars: deps.budgetChars,
    ...(fields ? { fields } : {}),
    ...(brief ? { brief } : {}),
    ...(Number.isFinite(offset) ? { offset } : {}),
  });
  return {
    ...result,
    data: compact.data,
    ...(compact.returned !== undefined ? { returned: compact.returned } : {}),
    ...(compact.nextOffset !== undefined ? { nextOffset: compact.nextOffset } : {}),
    ...(compact.note ? { note: compact.note } : {}),
  };
}
