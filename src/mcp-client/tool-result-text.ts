import { isDeepStrictEqual } from 'node:util';
import type { McpCallResult, McpContent } from './mcp-connector.port.js';

/** An image a tool returned, for models that take images: base64 `data` of `mimeType`. */
export interface ToolResultImage {
  mimeType: string;
  data: string;
}

/** A tool result as a model gets it: text for every block, and the images a model that takes them may see. */
export interface ToolResultContent {
  text: string;
  images: ToolResultImage[];
}

/** The image types every provider that takes images accepts. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * The most bytes of images one result passes on as images (each is also described in its text):
 * they travel with the turn to the model and, while it waits for an approval, in its stored state.
 */
export const MAX_RESULT_IMAGE_BYTES = 1024 * 1024;

/** Bytes of base64 `data`, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.replace(/\s/g, '').length * 3) / 4) - padding);
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} kB`;
}

/** One block as text: text as it is, everything else described with what identifies it. */
function blockText(block: McpContent): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${size(base64Bytes(block.data))}]`;
    case 'resource_link': {
      const named = block.title && block.title !== block.name ? `${block.name} (${block.title})` : block.name;
      const described = block.description ? `: ${block.description}` : '';
      return `[resource link: ${named} <${block.uri}>${block.mimeType ? ` ${block.mimeType}` : ''}${described}]`;
    }
    case 'resource': {
      const type = block.mimeType ? ` ${block.mimeType}` : '';
      if (block.text !== undefined) return `[resource <${block.uri}>${type}]\n${block.text}`;
      return `[resource <${block.uri}>${type}, ${size(base64Bytes(block.blob ?? ''))} of binary content, not shown]`;
    }
  }
}

/** Whether some text block already says the structured content (as the protocol asks servers to: its JSON). */
function saidInText(result: McpCallResult): boolean {
  return result.content.some((block) => {
    if (block.type !== 'text') return false;
    try {
      return isDeepStrictEqual(JSON.parse(block.text), result.structuredContent);
    } catch {
      return false;
    }
  });
}

/**
 * A tool result for the model: every block as text (images, audio and binary resources described by
 * type and size, resource links with name, URI and type, embedded text resources with their text),
 * the structured content as JSON where no text block says it; and the images of a type models take,
 * up to MAX_RESULT_IMAGE_BYTES in all, for providers that accept them.
 */
export function toolResultContent(result: McpCallResult): ToolResultContent {
  const parts = result.content.map(blockText);
  if (result.structuredContent && !saidInText(result)) {
    parts.push(
      parts.length === 0 ? JSON.stringify(result.structuredContent) : `structured content: ${JSON.stringify(result.structuredContent)}`,
    );
  }
  const images: ToolResultImage[] = [];
  let bytes = 0;
  for (const block of result.content) {
    if (block.type !== 'image' || !IMAGE_TYPES.has(block.mimeType)) continue;
    bytes += base64Bytes(block.data);
    if (bytes > MAX_RESULT_IMAGE_BYTES) break;
    images.push({ mimeType: block.mimeType, data: block.data });
  }
  return { text: parts.join('\n'), images };
}

function httpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599 ? value : undefined;
}

/**
 * The platform's HTTP status in a platform tool's answer, as the tool server writes it: `status`
 * of a success, `details.http_status` of a failure (`{status: "error", error, details}`).
 */
export function platformHttpStatus(structured: Record<string, unknown> | undefined, text: string): number | undefined {
  const fromStructured = httpStatus(structured?.status);
  if (fromStructured !== undefined || !text.startsWith('{')) return fromStructured;
  try {
    const body = JSON.parse(text) as { status?: unknown; details?: { http_status?: unknown } };
    return httpStatus(body.status) ?? httpStatus(body.details?.http_status);
  } catch {
    return undefined;
  }
}
