import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { StartupError, UpstreamError } from '../../kernel/errors.js';
import {
  ProviderError,
  type ChatMessage,
  type ProviderFactory,
  type ProviderReply,
  type ToolCall,
  type ToolDefinition,
} from './provider.port.js';
import { callProvider } from './provider-http.adapter.js';
import { PROVIDER_KINDS } from '../../records/provider-kinds.js';

/** The `model_config` key naming the handler. */
const HANDLER_KEY = PROVIDER_KINDS.custom.routeKey;

/** What a custom handler sees for one call. */
export interface CustomProviderRequest {
  model: string;
  endpoint: string;
  apiVersion: string;
  /** The model's secret value, if it names one. */
  credential?: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  temperature: number;
  options: Record<string, unknown>;
}

/** The HTTP request a custom handler wants sent; `body` is sent as JSON. */
export interface CustomHttpRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A provider added without changing the service: a module named in CUSTOM_PROVIDERS exports one
 * of these (or an array) as `default` or `providers`. The service sends the request, with time
 * limits and retries, and hands the JSON answer back for parsing.
 */
export interface CustomProviderDefinition {
  name: string;
  formatRequest(request: CustomProviderRequest): CustomHttpRequest;
  /** `usage`: the call's tokens, when the answer tells them (kept per user and model, counted against budgets). */
  parseResponse(body: unknown): Pick<ProviderReply, 'content' | 'usage'> & { toolCalls?: ToolCall[] };
}

function isDefinition(value: unknown): value is CustomProviderDefinition {
  const candidate = value as Partial<CustomProviderDefinition> | null;
  return (
    typeof candidate?.name === 'string' &&
    candidate.name.length > 0 &&
    typeof candidate.formatRequest === 'function' &&
    typeof candidate.parseResponse === 'function'
  );
}

/** Imports every CUSTOM_PROVIDERS module (a path, relative to `cwd`, or a package name) once, at start-up. */
export async function loadCustomProviders(specifiers: string[], cwd = process.cwd()): Promise<Map<string, CustomProviderDefinition>> {
  const definitions = new Map<string, CustomProviderDefinition>();
  for (const specifier of specifiers) {
    const target = specifier.startsWith('.') || path.isAbsolute(specifier) ? pathToFileURL(path.resolve(cwd, specifier)).href : specifier;
    let module: { default?: unknown; providers?: unknown };
    try {
      module = (await import(target)) as typeof module;
    } catch (error) {
      throw new StartupError(`CUSTOM_PROVIDERS: cannot load '${specifier}': ${(error as Error).message}`);
    }
    const exported = module.providers ?? module.default;
    const list = Array.isArray(exported) ? exported : [exported];
    if (list.length === 0 || !list.every(isDefinition)) {
      throw new StartupError(
        `CUSTOM_PROVIDERS: '${specifier}' must export (as default or providers) {name, formatRequest, parseResponse} or an array of them`,
      );
    }
    for (const definition of list) {
      if (definitions.has(definition.name)) throw new StartupError(`CUSTOM_PROVIDERS: two handlers are named '${definition.name}'`);
      definitions.set(definition.name, definition);
    }
  }
  return definitions;
}

function pick(definitions: Map<string, CustomProviderDefinition>, wanted: unknown): CustomProviderDefinition {
  const names = [...definitions.keys()];
  const name = typeof wanted === 'string' ? wanted : names.length === 1 ? names[0] : undefined;
  const definition = name === undefined ? undefined : definitions.get(name);
  if (definition) return definition;
  const known = names.length > 0 ? `registered: ${names.join(', ')}` : 'none is registered (set CUSTOM_PROVIDERS on the workers)';
  const asked = typeof wanted === 'string' || wanted === undefined ? (wanted ?? '') : JSON.stringify(wanted);
  throw new ProviderError('configuration', `no custom provider handler '${asked}' (set model_config.${HANDLER_KEY}; ${known})`);
}

export function customProviderFactory(definitions: Map<string, CustomProviderDefinition>): ProviderFactory {
  return (target, policy) => ({
    async chat(request): Promise<ProviderReply> {
      const { [HANDLER_KEY]: wanted, ...options } = request.options;
      const definition = pick(definitions, wanted);
      const http = definition.formatRequest({
        model: target.model,
        endpoint: target.hostedEndpoint,
        apiVersion: target.apiVersion,
        credential: target.credential,
        messages: request.messages,
        tools: request.tools,
        temperature: request.temperature,
        options,
      });
      const body = await callProvider(policy, { signal: request.signal }, async (fetch) => {
        const response = await fetch(http.url, {
          method: http.method ?? 'POST',
          headers: { 'content-type': 'application/json', ...http.headers },
          ...(http.body === undefined ? {} : { body: JSON.stringify(http.body) }),
        });
        if (!response.ok) throw new UpstreamError(`HTTP ${response.status}`);
        return await response.json();
      });
      let parsed: ReturnType<CustomProviderDefinition['parseResponse']>;
      try {
        parsed = definition.parseResponse(body);
      } catch (error) {
        throw new ProviderError(
          'invalid_response',
          `the '${definition.name}' handler could not read the answer: ${(error as Error).message}`,
        );
      }
      return { content: parsed.content, toolCalls: parsed.toolCalls ?? [], ...(parsed.usage ? { usage: parsed.usage } : {}) };
    },
  });
}
