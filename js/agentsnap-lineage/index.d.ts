/** The headers agentsnap serve reads. */
export declare const HEADERS: {
  readonly session: 'Agentsnap-Session';
  readonly parent: 'Agentsnap-Parent';
  readonly call: 'Agentsnap-Call';
  readonly mode: 'Agentsnap-Mode';
};

/** How a child starts: with an empty conversation, or with its parent's completed turns. */
export type Mode = 'spawn' | 'fork';

/** A child session as the helper names it. */
export interface Session {
  id: string;
  parent: string;
  callId: string;
  mode: Mode;
}

/** The session in effect, or undefined for the root. */
export declare function current(): Session | undefined;

/** The Agentsnap-* headers of the session in effect ({} for the root). */
export declare function lineageHeaders(): Record<string, string>;

/** A fetch that sends every request with the headers of the session in effect. */
export declare function lineageFetch(baseFetch?: typeof fetch): typeof fetch;

/** Runs fn as the child session the tool call callId of the session in effect creates. */
export declare function child<T>(callId: string, mode: Mode, fn: () => T): T;

/**
 * Makes each invocation of an Agents SDK function tool (agent.asTool(), tool())
 * or an AI SDK tool({ execute }) run as a child named by its tool call; returns
 * the tool, changed in place.
 */
export declare function childTool<T extends object>(tool: T, options?: { mode?: Mode }): T;

/** A recorded tool's call as the model made it; arguments the JSON text it gave (an object is sent as JSON). */
export interface ToolCall {
  name: string;
  arguments?: string | object;
  id?: string;
}

/** A tool's output: its text, and whether it is an error result. */
export interface ToolOutput {
  text: string;
  isError: boolean;
}

/**
 * Runs one call of a recorded tool through agentsnap serve for the session in effect:
 * a replay answers with the recorded output and run is not called; while recording run
 * is called and its output recorded.
 */
export declare function recordedTool(
  call: ToolCall,
  run: () => string | { text: string; isError?: boolean } | Promise<string | { text: string; isError?: boolean }>,
  options: { baseURL: string | URL; fetch?: typeof fetch },
): Promise<ToolOutput>;
