import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEADERS, child, childTool, current, lineageFetch, lineageHeaders } from '../index.js';

// recorder is a base fetch that keeps what it was given: the headers as a
// plain object (names lower-case, as Headers gives them).
function recorder() {
  const calls = [];
  const fetch = async (input, init) => {
    calls.push({ input, init, headers: Object.fromEntries(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))) });
    return new Response('{}');
  };
  return { calls, fetch };
}

// lineage picks the Agentsnap-* headers out of a call's headers.
function lineage(h) {
  const out = {};
  for (const name of Object.values(HEADERS)) {
    const v = h[name.toLowerCase()];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

// tick lets other tasks run, so concurrent children interleave.
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('the root sends no Agentsnap headers and passes the request through untouched', async () => {
  const r = recorder();
  const f = lineageFetch(r.fetch);
  const init = { method: 'POST', headers: { 'x-team': 'atlas' }, body: '{}' };
  await f('http://127.0.0.1:1/v1/chat/completions', init);
  assert.equal(r.calls.length, 1);
  assert.equal(r.calls[0].init, init, 'the same init object');
  assert.deepEqual(lineage(r.calls[0].headers), {});
  assert.equal(current(), undefined);
  assert.deepEqual(lineageHeaders(), {});
});

test('a child names itself, its parent "root", its tool call and its mode', async () => {
  const r = recorder();
  const f = lineageFetch(r.fetch);
  const out = await child('call_spawn_a', 'spawn', async () => {
    await f('http://x/v1/chat/completions', { method: 'POST' });
    return current();
  });
  assert.deepEqual(out, { id: 'root/call_spawn_a', parent: 'root', callId: 'call_spawn_a', mode: 'spawn' });
  assert.deepEqual(lineage(r.calls[0].headers), {
    'Agentsnap-Session': 'root/call_spawn_a',
    'Agentsnap-Parent': 'root',
    'Agentsnap-Call': 'call_spawn_a',
    'Agentsnap-Mode': 'spawn',
  });
  assert.deepEqual(lineage(Object.fromEntries(new Headers(await child('call_hdr', 'fork', () => lineageHeaders())))), {
    'Agentsnap-Session': 'root/call_hdr',
    'Agentsnap-Parent': 'root',
    'Agentsnap-Call': 'call_hdr',
    'Agentsnap-Mode': 'fork',
  });
});

test("a grandchild names its parent by the parent's session id", async () => {
  const r = recorder();
  const f = lineageFetch(r.fetch);
  await child('call_outer', 'spawn', () =>
    child('call_inner', 'fork', async () => {
      await f('http://x/', {});
    }),
  );
  assert.deepEqual(lineage(r.calls[0].headers), {
    'Agentsnap-Session': 'root/call_outer/call_inner',
    'Agentsnap-Parent': 'root/call_outer',
    'Agentsnap-Call': 'call_inner',
    'Agentsnap-Mode': 'fork',
  });
});

test('children running at once each send their own session, across awaits', async () => {
  const r = recorder();
  const f = lineageFetch(r.fetch);
  const run = (id) =>
    child(id, 'spawn', async () => {
      for (let i = 0; i < 3; i++) {
        await tick();
        await f(`http://x/${id}/${i}`, {});
      }
    });
  await Promise.all([run('call_par_a'), run('call_par_b'), f('http://x/root', {})]);
  assert.equal(r.calls.length, 7);
  for (const c of r.calls) {
    const url = String(c.input);
    const want = url.includes('call_par_a') ? 'root/call_par_a' : url.includes('call_par_b') ? 'root/call_par_b' : undefined;
    assert.equal(c.headers['agentsnap-session'], want, url);
  }
  const order = r.calls.map((c) => String(c.input).split('/')[3]);
  assert.notDeepEqual(order.slice(0, 3), ['call_par_a', 'call_par_a', 'call_par_a'], 'the children interleaved');
});

test('a call id used again by the same parent names a new child', async () => {
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(await child('call_again', 'spawn', async () => current().id));
  assert.deepEqual(ids, ['root/call_again', 'root/call_again#2', 'root/call_again#3']);
  // Another parent's call_again is its own.
  const nested = await child('call_p', 'spawn', () => child('call_again', 'spawn', () => current().id));
  assert.equal(nested, 'root/call_p/call_again');
});

test('the headers a request already has are kept: an object, Headers, pairs, or a Request', async () => {
  const r = recorder();
  const f = lineageFetch(r.fetch);
  await child('call_keep', 'spawn', async () => {
    await f('http://x/', { headers: { authorization: 'Bearer k', 'Agentsnap-Session': 'stale' } });
    await f('http://x/', { headers: new Headers({ authorization: 'Bearer k' }) });
    await f('http://x/', { headers: [['authorization', 'Bearer k']] });
    await f(new Request('http://x/', { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{}' }));
  });
  assert.equal(r.calls.length, 4);
  for (const c of r.calls) {
    assert.equal(c.init.headers.get('authorization'), 'Bearer k');
    assert.equal(c.init.headers.get('agentsnap-session'), 'root/call_keep');
    assert.equal(c.init.headers.get('agentsnap-call'), 'call_keep');
  }
  assert.equal(r.calls[3].input.method, 'POST', 'the Request itself goes on unchanged');
});

test('the default base fetch is globalThis.fetch at the time of the call', async () => {
  const f = lineageFetch();
  const saved = globalThis.fetch;
  const r = recorder();
  globalThis.fetch = r.fetch;
  try {
    await child('call_global', 'spawn', () => f('http://x/', {}));
  } finally {
    globalThis.fetch = saved;
  }
  assert.equal(r.calls[0].headers['agentsnap-session'], 'root/call_global');
});

test('an async iterable a child returns is iterated in the child', async () => {
  const r = recorder();
  const f = lineageFetch(r.fetch);
  const stream = child('call_stream', 'spawn', async function* () {
    await f('http://x/1', {});
    yield 'a';
    await tick();
    await f('http://x/2', {});
    yield 'b';
  });
  const got = [];
  for await (const v of stream) got.push(v); // iterated here, in the root
  assert.deepEqual(got, ['a', 'b']);
  assert.deepEqual(r.calls.map((c) => c.headers['agentsnap-session']), ['root/call_stream', 'root/call_stream']);
});

test('bad arguments are refused, naming what to give', () => {
  assert.throws(() => child('', 'spawn', () => {}), /agentsnap-lineage: child\(callId, mode, fn\): callId is ""; give the id of the tool call/);
  assert.throws(() => child(undefined, 'spawn', () => {}), /callId is missing/);
  assert.throws(() => child('call_x', 'clone', () => {}), /mode is "clone"; want 'spawn' or 'fork'/);
  assert.throws(() => child('call_x', 'spawn'), /fn is missing; give the function that runs the child/);
  assert.throws(() => lineageFetch('http://x'), /lineageFetch\(baseFetch\): baseFetch is string; give a fetch function/);
  assert.throws(() => childTool({ name: 'idle' }), /tool "idle" has neither invoke \(an Agents SDK tool\) nor execute \(an AI SDK tool\)/);
  assert.throws(() => childTool(null), /childTool\(tool\): tool is null/);
  assert.throws(() => childTool({ execute() {} }, { mode: 'spwan' }), /mode is "spwan"/);
});

test('childTool names an Agents SDK tool call by its call id, not the response id', async () => {
  const seen = [];
  const t = {
    type: 'function',
    name: 'research',
    async invoke(runContext, input, details) {
      seen.push({ self: this, runContext, input, session: current() });
      return `done ${input}`;
    },
  };
  assert.equal(childTool(t), t, 'changed in place');
  assert.equal(childTool(t), t, 'wrapping twice wraps once');
  // The Agents SDK's Chat Completions model gives every call of one
  // response toolCall.id = the response id; callId is the call's own.
  const details = (callId) => ({ toolCall: { type: 'function_call', id: 'chatcmpl-1', callId, name: 'research', arguments: '{}' } });
  const out = await Promise.all([t.invoke('ctx', 'a', details('call_sdk_a')), t.invoke('ctx', 'b', details('call_sdk_b'))]);
  assert.deepEqual(out, ['done a', 'done b']);
  assert.deepEqual(seen.map((s) => s.session), [
    { id: 'root/call_sdk_a', parent: 'root', callId: 'call_sdk_a', mode: 'spawn' },
    { id: 'root/call_sdk_b', parent: 'root', callId: 'call_sdk_b', mode: 'spawn' },
  ]);
  assert.equal(seen[0].self, t);
  assert.equal(seen[0].runContext, 'ctx');
  assert.throws(() => t.invoke('ctx', 'c', { toolCall: { id: 'chatcmpl-1' } }), /tool "research" was invoked without details\.toolCall\.callId/);
});

test('childTool names an AI SDK tool call by the toolCallId its execute gets', async () => {
  const t = childTool(
    {
      description: 'Research a topic.',
      async execute(input, options) {
        return { input, session: current(), signal: options.abortSignal };
      },
    },
    { mode: 'fork' },
  );
  const signal = AbortSignal.timeout(60_000);
  const got = await t.execute({ topic: 'x' }, { toolCallId: 'call_ai_1', messages: [], abortSignal: signal });
  assert.deepEqual(got, { input: { topic: 'x' }, session: { id: 'root/call_ai_1', parent: 'root', callId: 'call_ai_1', mode: 'fork' }, signal });
  assert.throws(() => t.execute({}, {}), /tool "Research a topic\." was executed without options\.toolCallId/);
});
