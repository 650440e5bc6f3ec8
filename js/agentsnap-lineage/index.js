// agentsnap-lineage names the session of every model call a Node agent
// makes, so `agentsnap serve` replays (or records) each session of the
// agent tree from its own script: the root, and every subagent by the tool
// call that created it.
//
// The session in effect is carried in an AsyncLocalStorage, so it follows
// the agent's own awaits, callbacks and concurrent children without being
// passed around. lineageFetch puts it on each request as the Agentsnap-*
// headers; child (or childTool, for a framework's tools) opens a child
// session. The root sends no headers: serve takes such calls as the
// root's, and a child of that root names its parent "root".
import { AsyncLocalStorage } from 'node:async_hooks';

/** The headers serve reads (see agentsnap help serve). */
export const HEADERS = Object.freeze({
  session: 'Agentsnap-Session',
  parent: 'Agentsnap-Parent',
  call: 'Agentsnap-Call',
  mode: 'Agentsnap-Mode',
});

const MODES = new Set(['spawn', 'fork']);

// A session is {id, parent, callId, mode, made}; made counts the children
// each call id of the session created, so a call id the model reuses in a
// later step (servers that number calls per response) names a new child.
const storage = new AsyncLocalStorage();
// The root: the session of every call made outside child().
const root = { id: 'root', made: new Map() };

/**
 * current returns the session in effect — {id, parent, callId, mode} — or
 * undefined for the root.
 */
export function current() {
  const s = storage.getStore();
  return s && { id: s.id, parent: s.parent.id, callId: s.callId, mode: s.mode };
}

/**
 * lineageHeaders returns the Agentsnap-* headers of the session in effect,
 * as a plain object ({} for the root): for an SDK that takes headers per
 * request instead of a fetch.
 */
export function lineageHeaders() {
  const s = storage.getStore();
  if (!s) return {};
  return { [HEADERS.session]: s.id, [HEADERS.parent]: s.parent.id, [HEADERS.call]: s.callId, [HEADERS.mode]: s.mode };
}

/**
 * lineageFetch returns a fetch that sends every request with the
 * Agentsnap-* headers of the session in effect (none for the root), through
 * baseFetch — globalThis.fetch, looked up at each call, by default. Give it
 * to the SDK's client: new OpenAI({ fetch: lineageFetch() }),
 * createOpenAI({ fetch: lineageFetch() }).
 */
export function lineageFetch(baseFetch) {
  if (baseFetch !== undefined && typeof baseFetch !== 'function') {
    throw new TypeError(`agentsnap-lineage: lineageFetch(baseFetch): baseFetch is ${typeof baseFetch}; give a fetch function, or nothing for globalThis.fetch`);
  }
  const send = baseFetch ?? ((input, init) => globalThis.fetch(input, init));
  return function agentsnapFetch(input, init) {
    const h = lineageHeaders();
    if (!h[HEADERS.session]) return send(input, init);
    // Start from the headers the request already has: init's, or those of a
    // Request given as input (init.headers would replace them).
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [name, value] of Object.entries(h)) headers.set(name, value);
    return send(input, { ...init, headers });
  };
}

/**
 * child runs fn as the child session that the tool call callId of the
 * session in effect creates — mode 'spawn' (it starts with an empty
 * conversation) or 'fork' (it starts with its parent's completed turns) —
 * and returns what fn returns. Every model call fn makes, awaited or not,
 * names that child; an async iterable fn returns is iterated in it too.
 */
export function child(callId, mode, fn) {
  if (typeof callId !== 'string' || callId === '') {
    throw new TypeError(`agentsnap-lineage: child(callId, mode, fn): callId is ${describe(callId)}; give the id of the tool call that creates the child`);
  }
  if (!MODES.has(mode)) {
    throw new TypeError(`agentsnap-lineage: child(${JSON.stringify(callId)}, mode, fn): mode is ${describe(mode)}; want 'spawn' or 'fork'`);
  }
  if (typeof fn !== 'function') {
    throw new TypeError(`agentsnap-lineage: child(${JSON.stringify(callId)}, ${JSON.stringify(mode)}, fn): fn is ${describe(fn)}; give the function that runs the child`);
  }
  const parent = storage.getStore() ?? root;
  const n = (parent.made.get(callId) ?? 0) + 1;
  parent.made.set(callId, n);
  const s = { id: `${parent.id}/${callId}${n > 1 ? `#${n}` : ''}`, parent, callId, mode, made: new Map() };
  return bind(s, storage.run(s, fn));
}

// bind makes an async iterable run in session s when it is iterated (an
// AI SDK tool's `async *execute` streams its results that way): a
// generator's body runs in the context of whoever calls next().
function bind(s, value) {
  if (value == null || typeof value.then === 'function' || typeof value[Symbol.asyncIterator] !== 'function') {
    return value;
  }
  return {
    [Symbol.asyncIterator]() {
      const it = storage.run(s, () => value[Symbol.asyncIterator]());
      const step = (name) => (arg) =>
        typeof it[name] === 'function' ? storage.run(s, () => it[name](arg)) : Promise.resolve({ done: true, value: arg });
      return { next: step('next'), return: step('return'), throw: step('throw'), [Symbol.asyncIterator]() { return this; } };
    },
  };
}

const wrapped = Symbol('agentsnap-lineage.childTool');

/**
 * childTool makes each invocation of a tool run as a child session named
 * by the tool call that invoked it, and returns the tool (changed in
 * place: a framework may know its tools by identity). It takes
 *
 *   - an OpenAI Agents SDK function tool — agent.asTool({...}), or a
 *     tool({...}) whose execute calls another model: the child is named by
 *     the function call's call id (details.toolCall.callId; toolCall.id is
 *     the id of the model response, the same for every call of one step);
 *   - a Vercel AI SDK tool({ execute }): the child is named by the
 *     toolCallId its execute gets.
 *
 * options.mode is 'spawn' (the default) or 'fork'. Wrapping a tool twice
 * wraps it once.
 */
export function childTool(tool, { mode = 'spawn' } = {}) {
  if (!MODES.has(mode)) {
    throw new TypeError(`agentsnap-lineage: childTool(tool, { mode }): mode is ${describe(mode)}; want 'spawn' or 'fork'`);
  }
  if (tool == null || typeof tool !== 'object') {
    throw new TypeError(`agentsnap-lineage: childTool(tool): tool is ${describe(tool)}; give a tool made by agent.asTool() or tool({ execute })`);
  }
  if (tool[wrapped]) return tool;
  const name = tool.name ?? tool.description ?? 'tool';
  if (typeof tool.invoke === 'function') {
    // The Agents SDK calls invoke(runContext, input, details).
    const invoke = tool.invoke;
    tool.invoke = function (runContext, input, details) {
      const callId = details?.toolCall?.callId;
      if (typeof callId !== 'string' || callId === '') {
        throw new Error(`agentsnap-lineage: tool ${JSON.stringify(name)} was invoked without details.toolCall.callId, so its child session cannot be named; invoke it through the Agents SDK runner (or call child(callId, mode, fn) yourself)`);
      }
      return child(callId, mode, () => invoke.call(this, runContext, input, details));
    };
  } else if (typeof tool.execute === 'function') {
    // The AI SDK calls execute(input, { toolCallId, messages, abortSignal, ... }).
    const execute = tool.execute;
    tool.execute = function (input, options) {
      const callId = options?.toolCallId;
      if (typeof callId !== 'string' || callId === '') {
        throw new Error(`agentsnap-lineage: tool ${JSON.stringify(name)} was executed without options.toolCallId, so its child session cannot be named; let the AI SDK execute it (or call child(callId, mode, fn) yourself)`);
      }
      return child(callId, mode, () => execute.call(this, input, options));
    };
  } else {
    throw new TypeError(`agentsnap-lineage: childTool(tool): tool ${JSON.stringify(name)} has neither invoke (an Agents SDK tool) nor execute (an AI SDK tool); a tool without either runs nothing to name`);
  }
  Object.defineProperty(tool, wrapped, { value: true });
  return tool;
}

/**
 * recordedTool runs one call of a recorded tool — a tool whose answer
 * changes from run to run (the time, a search, an HTTP API), or that must
 * not run in CI — through agentsnap serve, for the session in effect. In a
 * replay serve answers with the output it recorded and run is not called;
 * while recording run is called and its output recorded in the session's
 * log.
 *
 * call is the tool call as the model made it: { name, arguments, id } —
 * arguments the JSON text the model gave (an object is sent as JSON), id
 * when the agent has it (without one serve takes the first call of the
 * session's last answer with that name and those arguments not asked for
 * yet: a retry of a call passes its id).
 * run returns the tool's text (another value is recorded as its String),
 * or { text, isError }; what it throws is recorded as an error result. options.baseURL is serve's address (the
 * model base URL serve printed will do); options.fetch the fetch to send
 * with. Returns { text, isError }; throws, with serve's message, for a
 * call that is none of the session's last answer's or has its output
 * recorded already. Until the output of a call serve told to run is sent,
 * the session's next model request is refused.
 */
export async function recordedTool(call, run, { baseURL, fetch: send = (input, init) => globalThis.fetch(input, init) } = {}) {
  if (call == null || typeof call.name !== 'string' || call.name === '') {
    throw new TypeError(`agentsnap-lineage: recordedTool(call, run): call.name is ${describe(call?.name)}; give the tool call as the model made it: { name, arguments, id }`);
  }
  if (typeof run !== 'function') {
    throw new TypeError(`agentsnap-lineage: recordedTool(${JSON.stringify(call.name)}, run): run is ${describe(run)}; give the function that runs the tool`);
  }
  let url;
  try {
    url = new URL('/agentsnap/tool', baseURL).href;
  } catch {
    throw new TypeError(`agentsnap-lineage: recordedTool(${JSON.stringify(call.name)}, run, { baseURL }): baseURL is ${describe(baseURL)}; give agentsnap serve's address, such as the base URL it printed (http://127.0.0.1:41234/v1)`);
  }
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  const body = { name: call.name, arguments: args, ...(call.id ? { id: call.id } : {}) };
  let answer = await askServe(send, url, body);
  if (answer.run) {
    let output;
    try {
      const r = await run();
      output = r !== null && typeof r === 'object' ? { text: String(r.text ?? ''), isError: Boolean(r.isError) } : { text: String(r ?? '') };
    } catch (err) {
      output = { text: String(err?.message ?? err), isError: true };
    }
    answer = await askServe(send, url, { ...body, ...(answer.id ? { id: answer.id } : {}), output });
  }
  if (answer.output == null) {
    throw new Error(`agentsnap-lineage: recordedTool(${JSON.stringify(call.name)}): serve answered neither an output nor run; is ${url} agentsnap serve?`);
  }
  return { text: String(answer.output.text ?? ''), isError: Boolean(answer.output.isError) };
}

// askServe posts body to serve's recorded-tool endpoint for the session in
// effect and returns its JSON answer; an error status throws its message.
async function askServe(send, url, body) {
  let resp;
  try {
    resp = await send(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...lineageHeaders() }, body: JSON.stringify(body) });
  } catch (err) {
    throw new Error(`agentsnap-lineage: recordedTool(${JSON.stringify(body.name)}): POST ${url}: ${err?.message ?? err}; is agentsnap serve running there?`, { cause: err });
  }
  const text = await resp.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!resp.ok) {
    throw new Error(`agentsnap-lineage: recordedTool(${JSON.stringify(body.name)}): serve answered ${resp.status}: ${parsed?.error?.message ?? text}`);
  }
  return parsed ?? {};
}

function describe(v) {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  return typeof v;
}
