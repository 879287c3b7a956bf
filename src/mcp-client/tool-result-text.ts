import type { McpCallResult } from './mcp-connector.port.js';

/**
 * A tool result as text for the model: its text blocks, or its structured content as JSON when it
 * has no text; other blocks (images, audio, resources) are named, not inlined.
 */
export function toolResultText(result: McpCallResult): string {
  const parts = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.kind} content not shown]`));
  if (parts.length === 0 && result.structuredContent) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
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
