import type { Schemas } from '../../api/openapi-types.js';

export type UsageFigures = Schemas['UsageFigures'];

/** Figures summed; a cost stays null once one part of it is unknown. (The admin and chat pages sum with it too.) */
export function sumFigures(parts: UsageFigures[]): UsageFigures {
  return parts.reduce<UsageFigures>(
    (total, part) => ({
      input_tokens: total.input_tokens + part.input_tokens,
      output_tokens: total.output_tokens + part.output_tokens,
      cost: total.cost === null || part.cost === null ? null : total.cost + part.cost,
    }),
    { input_tokens: 0, output_tokens: 0, cost: 0 },
  );
}
