import type { ChatMessage } from './providers/provider.port.js';
import type { StoredMessage } from './session-store.port.js';

/**
 * The most recent whole turns that fit in `budgetChars` (content and tool arguments counted),
 * oldest first, without the bookkeeping fields. A turn is never cut in half: a tool result
 * without the call that asked for it confuses every provider.
 */
export function historyWithinBudget(history: StoredMessage[], budgetChars: number): ChatMessage[] {
  const turns: StoredMessage[][] = [];
  for (const message of history) {
    const last = turns.at(-1);
    if (last && last[0]?.turn_id === message.turn_id) last.push(message);
    else turns.push([message]);
  }
  const kept: StoredMessage[][] = [];
  let used = 0;
  for (let index = turns.length - 1; index >= 0; index--) {
    const turn = turns[index] as StoredMessage[];
    const size = turn.reduce((sum, message) => sum + sizeOf(message), 0);
    if (used + size > budgetChars) break;
    used += size;
    kept.unshift(turn);
  }
  return kept.flat().map(({ turn_id: _turn, created: _created, ...message }) => message);
}

function sizeOf(message: StoredMessage): number {
  const calls = message.role === 'assistant' && message.tool_calls ? JSON.stringify(message.tool_calls).length : 0;
  return message.content.length + calls;
}
