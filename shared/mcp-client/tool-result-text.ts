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
