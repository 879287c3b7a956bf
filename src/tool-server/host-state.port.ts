import type { JSONRPCErrorResponse, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';

/** What a host declared at initialize, kept for the later requests of a stateless HTTP connection. */
export interface HostSession {
  /** Who initialized it (see Caller in caller-check.ts): a request of anyone else never uses it. */
  caller: string;
  /** The host's clientInfo.name. */
  client: string;
  /** It declared form elicitation: its user can be asked mid-call. */
  elicitation: boolean;
}

/** A host's answer to a request the server sent it. */
export type HostAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/**
 * Port: the tool server's state shared by every instance behind a balancer (Redis), or kept in
 * process (stdio, or HTTP without Redis: one instance).
 */
export interface HostState {
  /** Keeps what a host declared under a new session id, for `ttlMs` after its last use. */
  openSession(id: string, session: HostSession, ttlMs: number): Promise<void>;
  /** The session, when it exists and `caller` opened it. */
  session(id: string, caller: string): Promise<HostSession | undefined>;
  /** Marks a confirm token used: true the first time, false when it was used already (replay). */
  claimToken(id: string, ttlMs: number): Promise<boolean>;
  /** Registers, before the request `id` goes to `caller`'s host, that an answer to it is awaited (for `ttlMs`). */
  expectAnswer(id: string, caller: string, ttlMs: number): Promise<void>;
  /**
   * Waits (up to `ttlMs`, or until `signal` aborts) for the answer to the expected request `id`;
   * undefined when none came. The answer may reach any instance (deliverAnswer).
   */
  awaitAnswer(id: string, ttlMs: number, signal: AbortSignal): Promise<HostAnswer | undefined>;
  /** Hands an answer to the call waiting for it, on whichever instance: false when none waits, or it waits for another caller's host. */
  deliverAnswer(answer: HostAnswer, caller: string): Promise<boolean>;
}
